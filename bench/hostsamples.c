/*
  Wall-clock samples of a program's main thread, for host time that no log event names (PETSc's
  passes inside an event, page faults, waits in MPI): loaded with LD_PRELOAD, it takes the main
  thread's stack every HOSTSAMPLES_US microseconds (default 1000) of wall-clock time, and at exit
  writes $HOSTSAMPLES.<pid>.maps (the process's /proc/self/maps) and $HOSTSAMPLES.<pid>.raw (one
  sample a line: the depth, then the return addresses, innermost first). bench/hostsamples.py
  reads them into a call tree. Without $HOSTSAMPLES it does nothing.

    HOSTSAMPLES=/tmp/s LD_PRELOAD=$PWD/build/bin/hostsamples.so mpiexec -n 2 build/bin/ksp_ex45 ...
    bench/hostsamples.py /tmp/s.<pid> --root PCSetUp_GAMG
*/
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MAX_SAMPLES 400000
#define MAX_DEPTH   48

static void         **frames;
static unsigned char *depths;
static volatile long  nsamples;
static timer_t        timer;
static int            started;

/* backtrace() from a signal handler: its unwinder is loaded before the first signal (below) */
static void take(int sig)
{
  long k = nsamples;

  (void)sig;
  if (k >= MAX_SAMPLES) return;
  depths[k] = (unsigned char)backtrace(frames + k * MAX_DEPTH, MAX_DEPTH);
  nsamples  = k + 1;
}

__attribute__((constructor)) static void start(void)
{
  const char       *us_env = getenv("HOSTSAMPLES_US");
  long              us     = us_env ? atol(us_env) : 1000;
  void             *warm[4];
  struct sigaction  sa;
  struct sigevent   ev;
  struct itimerspec it;

  if (!getenv("HOSTSAMPLES") || us <= 0) return;
  frames = malloc(sizeof(void *) * MAX_SAMPLES * MAX_DEPTH);
  depths = malloc(MAX_SAMPLES);
  if (!frames || !depths) return;
  (void)backtrace(warm, 4);
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = take;
  sa.sa_flags   = SA_RESTART;
  if (sigaction(SIGRTMIN + 3, &sa, NULL)) return;
  memset(&ev, 0, sizeof(ev));
  ev.sigev_notify   = SIGEV_THREAD_ID; /* the main thread only: CUDA's and MPI's threads are not sampled */
  ev.sigev_signo    = SIGRTMIN + 3;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer)) return;
  it.it_interval.tv_sec  = us / 1000000;
  it.it_interval.tv_nsec = (us % 1000000) * 1000;
  it.it_value            = it.it_interval;
  started                = !timer_settime(timer, 0, &it, NULL);
}

__attribute__((destructor)) static void stop(void)
{
  const char *prefix = getenv("HOSTSAMPLES");
  char        name[4096], line[8192];
  FILE       *in, *out;
  long        n;

  if (!started) return;
  timer_delete(timer);
  n = nsamples;
  snprintf(name, sizeof(name), "%s.%d.maps", prefix, (int)getpid());
  in  = fopen("/proc/self/maps", "r");
  out = fopen(name, "w");
  if (in && out)
    while (fgets(line, sizeof(line), in)) fputs(line, out);
  if (in) fclose(in);
  if (out) fclose(out);
  snprintf(name, sizeof(name), "%s.%d.raw", prefix, (int)getpid());
  if (!(out = fopen(name, "w"))) return;
  for (long k = 0; k < n; k++) {
    fprintf(out, "%d", depths[k]);
    for (int d = 0; d < depths[k]; d++) fprintf(out, " %lx", (unsigned long)frames[k * MAX_DEPTH + d]);
    fputc('\n', out);
  }
  fclose(out);
}
