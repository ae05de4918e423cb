# petscspmv: GPU sparse-matrix formats as PETSc matrix types.
#
#   make                         build lib/libpetscspmv.so, the tests, the example and the benchmark
#   make demo                    set-up if needed, build, and run the demo solve comparing formats
#   make check                   the whole test suite; its last line is "N passed, N failed"
#   make install PREFIX=/path    library, header and pkg-config file (petscspmv.pc) under PREFIX
#
# PETSc comes from PETSC_DIR/PETSC_ARCH when set, otherwise from the cached build made by
# scripts/setup-petsc.sh (make setup).

# PETSCSPMV_VARIANT=complex or single: build against that PETSc build, into build/<scalar>
PETSCSPMV_VARIANT ?= real
export PETSCSPMV_VARIANT
ifeq ($(strip $(PETSC_DIR)),)
  PETSC_DIR  := $(shell PETSCSPMV_VARIANT=$(PETSCSPMV_VARIANT) bash -c '. scripts/petsc-env.sh >/dev/null; echo $$PETSC_DIR')
  PETSC_ARCH :=
endif
export PETSC_DIR PETSC_ARCH

# PETSc's variables define MPIEXEC, which make would then hand to the scripts in place of the
# user's (MPIEXEC=srun make check): the user's is put back; without one scripts/petsc-env.sh picks
PETSCSPMV_USER_MPIEXEC := $(if $(filter environment,$(origin MPIEXEC)),$(MPIEXEC))
PETSC_READY := $(wildcard $(PETSC_DIR)/lib/petsc/conf/variables)
ifneq ($(PETSC_READY),)
  include $(PETSC_DIR)/lib/petsc/conf/variables
  include $(PETSC_DIR)/lib/petsc/conf/rules
endif
ifneq ($(PETSCSPMV_USER_MPIEXEC),)
  MPIEXEC := $(PETSCSPMV_USER_MPIEXEC)
endif

.DEFAULT_GOAL := all
PREFIX ?= /usr/local
ifeq ($(PETSCSPMV_VARIANT),real)
  BUILDDIR = build
  LIBDIR   = lib
  RPATH    = $$ORIGIN/../../lib
else
  BUILDDIR = build/$(PETSCSPMV_VARIANT)
  LIBDIR   = $(BUILDDIR)/lib
  RPATH    = $$ORIGIN/../lib
endif
LIB     = $(LIBDIR)/libpetscspmv.so
OBJDIR  = $(BUILDDIR)/obj
BINDIR  = $(BUILDDIR)/bin
SRC_C  := $(shell find src -name '*.c' | sort)
SRC_CU := $(shell find src -name '*.cu' | sort)
OBJ     = $(SRC_C:%.c=$(OBJDIR)/%.o)
ifneq ($(strip $(CUDAC)),)
  OBJ  += $(SRC_CU:%.cu=$(OBJDIR)/%.cu.o)
endif
HEADERS := $(shell find include src -name '*.h') include/petscspmv.h
CCPPFLAGS   += -I$(CURDIR)/include
CUDACPPFLAGS += -I$(CURDIR)/include
CUDAC_FLAGS += -Xcompiler -Wall --extended-lambda

# CUDA architectures of our kernels: those PETSc was configured for (its -gencode list), or
# PETSCSPMV_CUDA_ARCH="80 86 89 90 100"; machine code for each and PTX of the newest, which a newer
# GPU compiles when the library loads (PETSc's own kernels need PETSc configured for that GPU).
# PETSc configured with -arch=native or all: its flags as they are.
comma := ,
PETSC_CUDA_ARCHS    := $(patsubst arch=compute_%,%,$(filter arch=compute_%,$(subst $(comma), ,$(CUDAC_FLAGS))))
PETSCSPMV_CUDA_ARCH ?= $(PETSC_CUDA_ARCHS)
CUDA_ARCHS := $(shell echo '$(PETSCSPMV_CUDA_ARCH)' | tr ', ' '\n\n' | sed 's/[^0-9]//g' | grep -E '^[0-9]+$$' | sort -un)
ifneq ($(strip $(CUDA_ARCHS)),)
  CUDAC_FLAGS := $(filter-out -gencode arch=%,$(CUDAC_FLAGS)) $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
endif

# the stock PETSc programs the tests and the demo run with -dll_append
PETSC_SRC ?= $(firstword $(wildcard $(PETSC_DIR)/src $(PETSC_DIR)/share/petsc/examples/src $(PETSCSPMV_CACHE_SRC)))
PETSCSPMV_CACHE_SRC := $(shell PETSCSPMV_VARIANT=$(PETSCSPMV_VARIANT) bash -c '. scripts/petsc-env.sh >/dev/null; echo $$PETSCSPMV_CACHE/petsc-$$PETSC_VERSION/src')
TESTS    = $(BINDIR)/test_matrices $(BINDIR)/test_vectors $(BINDIR)/test_gamg $(BINDIR)/test_gamg_mpi $(BINDIR)/test_ops $(BINDIR)/test_order $(BINDIR)/test_errors $(BINDIR)/test_spmv $(BINDIR)/test_compose $(BINDIR)/test_factor $(BINDIR)/test_sor $(BINDIR)/test_spgemm $(BINDIR)/test_installed $(BINDIR)/test_owners
EXAMPLES = $(BINDIR)/ex1
BENCH    = $(BINDIR)/spmvbench $(BINDIR)/sorbench $(BINDIR)/spgemmbench $(BINDIR)/hostsamples.so
STOCK    = $(BINDIR)/ex19 $(BINDIR)/ksp_ex2 $(BINDIR)/ksp_ex10 $(BINDIR)/ksp_ex11 $(BINDIR)/ksp_ex45 $(BINDIR)/ksp_ex56 $(BINDIR)/snes_ex12 $(BINDIR)/snes_ex62 \
           $(BINDIR)/ksp_ex29 $(BINDIR)/ksp_ex34 $(BINDIR)/snes_ex5 $(BINDIR)/snes_ex48 $(BINDIR)/ts_ex45 $(BINDIR)/ts_adr_ex5 $(BINDIR)/snes_ex3

all: check-petsc $(LIB) $(TESTS) $(EXAMPLES) $(BENCH) $(STOCK)

# PETSc's version, from petscversion.h (in PETSC_ARCH for a build in PETSc's source tree, in include/
# for a prefix install): "MAJOR MINOR SUBMINOR RELEASE" (RELEASE 0: a development snapshot)
PETSC_VERSION_H     := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscversion.h $(PETSC_DIR)/include/petscversion.h))
PETSC_VERSION_WORDS := $(shell awk '$$2 ~ /^PETSC_VERSION_(MAJOR|MINOR|SUBMINOR|RELEASE)$$/ { v[$$2] = $$3 } END { print v["PETSC_VERSION_MAJOR"], v["PETSC_VERSION_MINOR"], v["PETSC_VERSION_SUBMINOR"], v["PETSC_VERSION_RELEASE"] }' $(PETSC_VERSION_H) /dev/null)
# the oldest PETSc minor release petscspmv builds against, and the newest it was tested with (newer: a warning)
PETSCSPMV_PETSC_MIN    = 3.25
PETSCSPMV_PETSC_TESTED = 3.26

# Which PETSc the build was made against (location, version, CUDA architectures). Everything
# compiled depends on this file, which changes only when they do: pointing PETSC_DIR at another
# PETSc rebuilds everything instead of mixing one PETSc's headers with another's library.
PETSC_ID_FILE := $(BUILDDIR)/petsc-id
PETSC_ID      := $(PETSC_DIR) $(PETSC_ARCH) $(PETSC_VERSION_WORDS) $(CUDA_ARCHS)
ifneq ($(PETSC_READY),)
  $(shell mkdir -p $(BUILDDIR) && { [ "$$(cat $(PETSC_ID_FILE) 2>/dev/null)" = "$(PETSC_ID)" ] || echo "$(PETSC_ID)" >$(PETSC_ID_FILE); })
endif
$(PETSC_ID_FILE):
	@mkdir -p $(@D) && echo "$(PETSC_ID)" >$@

check-petsc:
	@test -n "$(PETSC_READY)" || { echo "No PETSc at PETSC_DIR=$(PETSC_DIR): run 'make setup' (or scripts/setup-petsc.sh), or set PETSC_DIR/PETSC_ARCH to your own PETSc build"; exit 1; }
	@set -- $(PETSC_VERSION_WORDS); min=$(PETSCSPMV_PETSC_MIN); tested=$(PETSCSPMV_PETSC_TESTED); \
	where="PETSC_DIR=$(PETSC_DIR)$(if $(PETSC_ARCH), PETSC_ARCH=$(PETSC_ARCH))"; \
	if [ $$# != 4 ]; then echo "Cannot read PETSc's version (include/petscversion.h) at $$where"; exit 1; fi; \
	if [ $$(($$1 * 1000 + $$2)) -lt $$(($${min%.*} * 1000 + $${min#*.})) ]; then \
	  echo "PETSc $$1.$$2.$$3 found at $$where, but petscspmv needs PETSc $$min or newer: set PETSC_DIR (and PETSC_ARCH) to another PETSc, or unset both for the PETSc that 'make setup' builds (scripts/setup-petsc.sh)"; exit 1; \
	elif [ "$$4" = 0 ]; then echo "Warning: PETSc $$1.$$2.$$3 at $$where is a development snapshot (PETSC_VERSION_RELEASE 0), not a release: untested with petscspmv, building anyway"; \
	elif [ $$(($$1 * 1000 + $$2)) -gt $$(($${tested%.*} * 1000 + $${tested#*.})) ]; then \
	  echo "Warning: PETSc $$1.$$2.$$3 at $$where is newer than the newest tested with petscspmv ($$tested.x): untested, building anyway"; fi
ifneq ($(strip $(CUDAC)),)
	@echo "petscspmv: CUDA kernels $(if $(strip $(CUDA_ARCHS)),for $(foreach a,$(CUDA_ARCHS),sm_$(a)) and PTX of compute_$(lastword $(CUDA_ARCHS)) ($(if $(filter environment command,$(firstword $(origin PETSCSPMV_CUDA_ARCH))),PETSCSPMV_CUDA_ARCH,as PETSc was configured)),with PETSc's CUDA flags (no architecture list in them))"
endif
# a wrong PETSc stops the build before anything is compiled, with make -j too
$(OBJ) $(STOCK): | check-petsc

setup:
	@scripts/setup-petsc.sh

$(OBJDIR)/%.o: %.c $(HEADERS) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PETSC_COMPILE_SINGLE) $<

$(OBJDIR)/%.cu.o: %.cu $(HEADERS) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PETSC_CUCOMPILE_SINGLE) $<

# petscspmv's version: include/petscspmv.h's PETSCSPMV_VERSION_MAJOR.MINOR.SUBMINOR
PETSCSPMV_VERSION_NUMBER := $(shell awk '$$2 ~ /^PETSCSPMV_VERSION_(MAJOR|MINOR|SUBMINOR)$$/ { v[$$2] = $$3 } END { print v["PETSCSPMV_VERSION_MAJOR"] "." v["PETSCSPMV_VERSION_MINOR"] "." v["PETSCSPMV_VERSION_SUBMINOR"] }' include/petscspmv.h)
# the soname carries the minor release, as PETSc's libpetsc.so.3.26: a program linked against one
# release does not load another's; libpetscspmv.so links to it (-lpetscspmv, -dll_append)
PETSCSPMV_SONAME = libpetscspmv.so.$(basename $(PETSCSPMV_VERSION_NUMBER))
$(LIBDIR)/$(PETSCSPMV_SONAME): $(OBJ)
	@mkdir -p $(@D)
	$(CLINKER) -shared -Wl,-soname,$(PETSCSPMV_SONAME) -o $@ $(OBJ) $(PETSC_LIB)
$(LIB): $(LIBDIR)/$(PETSCSPMV_SONAME)
	ln -sf $(PETSCSPMV_SONAME) $@

# tests, the example and the benchmark find the library next to them, wherever the tree is copied;
# util/ holds what tests and benchmark share (util/matrixmarket.h)
$(BINDIR)/%: tests/%.c tests/*.h util/*.h $(LIB) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) -Iutil $< -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,'$(RPATH)' -lpetscspmv $(PETSC_LIB)

# what a user copies: only <petscspmv.h> and the library, nothing from tests/ or util/
$(BINDIR)/ex1: examples/ex1.c $(LIB) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $< -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,'$(RPATH)' -lpetscspmv $(PETSC_LIB)

$(BINDIR)/spmvbench: bench/spmvbench.c util/matrixmarket.h $(LIB) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) -Iutil $< -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,'$(RPATH)' -lpetscspmv $(PETSC_LIB)

$(BINDIR)/sorbench: bench/sorbench.c util/stencil.h $(LIB) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) -Iutil $< -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,'$(RPATH)' -lpetscspmv $(PETSC_LIB)

$(BINDIR)/spgemmbench: bench/spgemmbench.c util/stencil.h $(LIB) $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) -Iutil $< -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,'$(RPATH)' -lpetscspmv $(PETSC_LIB)

# loaded with LD_PRELOAD into any program (no PETSc in it): samples of its main thread's stack
$(BINDIR)/hostsamples.so: bench/hostsamples.c
	@mkdir -p $(@D)
	$(PCC) -o $@ -shared -fPIC -O2 -Wall $<

$(BINDIR)/ex19: $(PETSC_SRC)/snes/tutorials/ex19.c $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $< $(PETSC_LIB)

# PETSc's tutorials by family: ksp_exN, snes_exN, ts_exN, ts_adr_exN (advection-diffusion-reaction,
# with its shared reaction_diffusion.c). bench/suite.sh dumps snes_ex12's and snes_ex62's Jacobians
# (Q2 Poisson, Q2-Q1 Stokes on DMPlex hexahedra); bench/stock.sh runs the others
$(BINDIR)/ksp_ex%: $(PETSC_SRC)/ksp/ksp/tutorials/ex%.c $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $< $(PETSC_LIB)

$(BINDIR)/snes_ex%: $(PETSC_SRC)/snes/tutorials/ex%.c $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $< $(PETSC_LIB)

$(BINDIR)/ts_ex%: $(PETSC_SRC)/ts/tutorials/ex%.c $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $< $(PETSC_LIB)

$(BINDIR)/ts_adr_ex%: $(PETSC_SRC)/ts/tutorials/advection-diffusion-reaction/ex%.c $(PETSC_ID_FILE)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) -I$(PETSC_SRC)/ts/tutorials/advection-diffusion-reaction $< $(PETSC_SRC)/ts/tutorials/advection-diffusion-reaction/reaction_diffusion.c $(PETSC_LIB)

# the CUDA architectures the library is built for (scripts/check-cuda-arch.sh)
print-cuda-arch:
	@echo $(CUDA_ARCHS)

check test: setup
	@$(MAKE) --no-print-directory all
	@BUILDDIR=$(BUILDDIR) LIBDIR=$(LIBDIR) tests/run.sh

demo: setup
	@$(MAKE) --no-print-directory all
	@scripts/setup-python.sh >/dev/null || echo "demo: petsc4py not set up (scripts/setup-python.sh says why); the solve runs anyway"
	@examples/demo.sh

# petsc4py (python; make demo does it) and SLEPc with slepc4py (slepc: about 5 more minutes, which
# would take make demo + make check past 30 minutes on 2 cores) built against the PETSc in use, in a
# virtual environment of their own; make check then runs tests/test_petsc4py.py and tests/test_slepc4py.py
python:
	@scripts/setup-python.sh
slepc:
	@scripts/setup-python.sh --slepc
.PHONY: python slepc print-cuda-arch

# the BRC paper's Table 5 study (SNES ex19, every type, ILU(0) and a polynomial preconditioner):
# make study STUDY_ARGS='-n 2 -g 256' (options: bench/ex19-study.sh --help)
study: all
	@bench/ex19-study.sh $(STUDY_ARGS)
.PHONY: study

# petscspmv.pc requires PETSc's own PETSc.pc (in $(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig): a user's
# build says PKG_CONFIG_PATH=PREFIX/lib/pkgconfig:that pkg-config --cflags --libs petscspmv. It requires
# the PETSc release the library was built against (it links libpetsc.so.MAJOR.MINOR) and
# carries PETSc's compiler and flag variables, which PETSc's share/petsc/Makefile.user reads from the
# packages it is given: PACKAGES := petscspmv builds a user's program (petscspmv alone: listed beside
# petsc.pc, each variable would come twice). The library, its header and
# the .pc only: no tests, tutorials or benchmarks
PETSC_PC_VARS = ccompiler cflags_extra cflags_dep ldflag_rpath ldflags cxxcompiler cxxflags_extra fcompiler fflags_extra \
                cudacompiler cudaflags_extra cudalib cudainclude cuda_cxx cuda_cxxflags mpiexec
install: $(LIB)
	install -d $(PREFIX)/lib/pkgconfig $(PREFIX)/include
	install -m 755 $(LIBDIR)/$(PETSCSPMV_SONAME) $(PREFIX)/lib/
	ln -sf $(PETSCSPMV_SONAME) $(PREFIX)/lib/libpetscspmv.so
	install -m 644 include/petscspmv.h $(PREFIX)/include/
	{ printf '%s\n' 'prefix=$(abspath $(PREFIX))' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include'; \
	  for v in $(PETSC_PC_VARS); do \
	    val=$$(PKG_CONFIG_PATH=$(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig pkg-config --variable=$$v PETSc 2>/dev/null) && [ -n "$$val" ] && printf '%s=%s\n' $$v "$$val"; \
	  done; \
	  printf '%s\n' '' 'Name: petscspmv' 'Description: GPU sparse-matrix formats as PETSc matrix types (brc, cmrs, argcsr, ipcsr, ellr, spmv)' \
	  'Version: $(PETSCSPMV_VERSION_NUMBER)' 'Requires: PETSc = $(subst $() ,.,$(wordlist 1,3,$(PETSC_VERSION_WORDS)))' \
	  'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lpetscspmv'; } >$(PREFIX)/lib/pkgconfig/petscspmv.pc

# PTX of every kernel source (scripts/ptx-diff.sh compares two revisions with it)
PTXARCH ?= compute_90
PTX      = $(SRC_CU:%.cu=$(BUILDDIR)/ptx/%.ptx)
ptx: check-petsc $(PTX)
$(BUILDDIR)/ptx/%.ptx: %.cu $(HEADERS)
	@mkdir -p $(@D)
	$(CUDAC) -ptx -arch=$(PTXARCH) -o $@ $(MPICXX_INCLUDES) $(filter-out -gencode arch=%,$(CUDAC_FLAGS)) $(CUDAFLAGS) $(CUDACPPFLAGS) --compiler-options="$(CXXCPPFLAGS)" $<
.PHONY: ptx

clean::
	rm -rf $(BUILDDIR) $(LIBDIR)

.PHONY: all check test demo install setup check-petsc
