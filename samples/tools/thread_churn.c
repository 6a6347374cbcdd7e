/* thread_churn NTHREADS SECONDS (issue 41): NTHREADS threads that each live 0.5-5.5 s (a little work
 * every 20 ms), then exit; the main thread starts a new one every 0.3 s until SECONDS.  Under
 * `perf record -g -k CLOCK_MONOTONIC -F 49 -p PID` (perf 6.1) the exit of the first thread perf opened
 * an event for makes perf spin in poll() (samples/README.md, "Why perf 6.1 spins with -p");
 * under `perf record -a` it does not.  Build: cc -O2 -pthread -o thread_churn thread_churn.c */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>
static void *work(void *a) { long ms = (long)a; volatile unsigned long x = 0;
  struct timespec s, n; clock_gettime(CLOCK_MONOTONIC, &s);
  for (;;) { for (int i = 0; i < 20000; i++) x += i; usleep(20000); clock_gettime(CLOCK_MONOTONIC, &n);
    if ((n.tv_sec - s.tv_sec) * 1000 + (n.tv_nsec - s.tv_nsec) / 1000000 > ms) break; }
  return NULL; }
int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 16; int secs = argc > 2 ? atoi(argv[2]) : 30;
  time_t end = time(NULL) + secs; srand(1);
  for (int i = 0; i < nt; i++) { pthread_t t; pthread_create(&t, NULL, work, (void *)(long)(500 + rand() % 5000)); pthread_detach(t); }
  while (time(NULL) < end) { usleep(300000); pthread_t t; pthread_create(&t, NULL, work, (void *)(long)(500 + rand() % 5000)); pthread_detach(t); }
  return 0; }
