/* mmap_store - scattered small stores into a MAP_SHARED file (a Galera-gcache-like writer).
 *
 * usage: mmap_store FILE RATE_PER_S NTHREADS DURATION_S OUTPREFIX [advice]
 *   advice: none (default) | random (madvise MADV_RANDOM) | hugepage (madvise MADV_HUGEPAGE)
 *
 * Every store writes 32 bytes at a random offset inside a uniformly random 4 KiB page of the
 * mapping.  The program never calls msync/fsync: only the kernel's writeback flushes the pages.
 * Ground-truth output (written by the program itself):
 *   OUTPREFIX.stores.csv   one line per store: epoch_s,tid,page_index
 *   OUTPREFIX.persec.csv   epoch_s,stores_in_last_second,total_stores
 *   OUTPREFIX.info         pid, tids and thread names, configuration, start/end epoch
 * Build: cc -O2 -pthread -o mmap_store mmap_store.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

static unsigned char *base;
static size_t pages;
static double per_thread_rate;
static atomic_int stopping;
static atomic_ulong stores_done;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *store_log, *info;

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* splitmix64: small, good enough, per-thread state */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *writer(void *arg)
{
	long n = (long)arg;
	char name[16];
	snprintf(name, sizeof name, "mstore-%ld", n);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	long tid = (long)syscall(SYS_gettid);
	pthread_mutex_lock(&log_lock);
	fprintf(info, "thread %s tid %ld\n", name, tid);
	fflush(info);
	pthread_mutex_unlock(&log_lock);

	uint64_t seed = ((uint64_t)time(NULL) << 8) ^ (uint64_t)tid;
	double start = clock_s(CLOCK_MONOTONIC);
	unsigned long mine = 0;
	while (!atomic_load(&stopping)) {
		unsigned long due = (unsigned long)((clock_s(CLOCK_MONOTONIC) - start) * per_thread_rate);
		while (mine < due) {
			uint64_t r = next_rand(&seed);
			size_t pg = (size_t)(r % pages);
			size_t off = (size_t)((r >> 32) % (PAGE - 32));
			memset(base + pg * PAGE + off, (int)(mine & 0xff) | 1, 32);
			mine++;
			atomic_fetch_add(&stores_done, 1);
			pthread_mutex_lock(&log_lock);
			fprintf(store_log, "%.6f,%ld,%zu\n", clock_s(CLOCK_REALTIME), tid, pg);
			pthread_mutex_unlock(&log_lock);
		}
		struct timespec nap = {0, 2 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: %s FILE RATE_PER_S NTHREADS DURATION_S OUTPREFIX [none|random|hugepage]\n", argv[0]);
		return 2;
	}
	const char *advice = argc > 6 ? argv[6] : "none";
	double rate = atof(argv[2]);
	int nthreads = atoi(argv[3]);
	double duration = atof(argv[4]);
	if (nthreads < 1 || nthreads > 32 || rate <= 0 || duration <= 0) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	per_thread_rate = rate / nthreads;

	int fd = open(argv[1], O_RDWR);
	if (fd < 0) { perror("open"); return 1; }
	struct stat st;
	if (fstat(fd, &st) != 0) { perror("fstat"); return 1; }
	pages = (size_t)st.st_size / PAGE;
	if (pages == 0) { fprintf(stderr, "file too small\n"); return 1; }
	/* ask for a 2 MiB aligned address so large folios can be PMD-mapped */
	size_t len = pages * PAGE, align = 2UL << 20;
	unsigned char *resv = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (resv == MAP_FAILED) { perror("mmap reserve"); return 1; }
	unsigned char *want = (unsigned char *)(((uintptr_t)resv + align - 1) & ~(uintptr_t)(align - 1));
	base = mmap(want, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (base == MAP_FAILED) { perror("mmap"); return 1; }

	int rc = 0;
	if (strcmp(advice, "random") == 0) rc = madvise(base, len, MADV_RANDOM);
	else if (strcmp(advice, "hugepage") == 0) rc = madvise(base, len, MADV_HUGEPAGE);
	else if (strcmp(advice, "none") != 0) { fprintf(stderr, "unknown advice %s\n", advice); return 2; }
	if (rc != 0) perror("madvise");

	char path[4096];
	snprintf(path, sizeof path, "%s.info", argv[5]);
	info = fopen(path, "w");
	snprintf(path, sizeof path, "%s.stores.csv", argv[5]);
	store_log = fopen(path, "w");
	snprintf(path, sizeof path, "%s.persec.csv", argv[5]);
	FILE *persec = fopen(path, "w");
	if (!info || !store_log || !persec) { perror("fopen"); return 1; }
	fprintf(info, "pid %d file %s bytes %lld pages %zu map %p rate %.3f threads %d duration %.1f advice %s\n",
		getpid(), argv[1], (long long)st.st_size, pages, (void *)base, rate, nthreads, duration, advice);
	fprintf(store_log, "epoch_s,tid,page\n");
	fprintf(persec, "epoch_s,stores_in_last_second,total_stores\n");

	/* map every page (reads only) so no store ever waits for a read from disk */
	volatile unsigned long sum = 0;
	for (size_t i = 0; i < pages; i++) sum += base[i * PAGE];
	fprintf(info, "prefault_done epoch %.6f\n", clock_s(CLOCK_REALTIME));
	fflush(info);

	pthread_t th[32];
	for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, writer, (void *)i);
	double t0 = clock_s(CLOCK_MONOTONIC), tick = 1.0;
	unsigned long prev = 0;
	fprintf(info, "start epoch %.6f\n", clock_s(CLOCK_REALTIME));
	fflush(info);
	while (clock_s(CLOCK_MONOTONIC) - t0 < duration) {
		if (clock_s(CLOCK_MONOTONIC) - t0 >= tick) {
			unsigned long now = atomic_load(&stores_done);
			fprintf(persec, "%.3f,%lu,%lu\n", clock_s(CLOCK_REALTIME), now - prev, now);
			fflush(persec);
			pthread_mutex_lock(&log_lock);
			fflush(store_log);
			pthread_mutex_unlock(&log_lock);
			prev = now;
			tick += 1.0;
		}
		usleep(10000);
	}
	atomic_store(&stopping, 1);
	for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
	fprintf(info, "end epoch %.6f stores %lu\n", clock_s(CLOCK_REALTIME), (unsigned long)atomic_load(&stores_done));
	fclose(store_log);
	fclose(persec);
	fclose(info);
	munmap(base, len);
	close(fd);
	return 0;
}
