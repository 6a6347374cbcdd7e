/* periodic_writer.c - the issuer-matrix workloads (samples/ix_*): one writer whose own code decides who issues the
 * block writes of its data, and a log of every operation it makes.
 *
 *   periodic_writer MODE PATH SIZE PERIOD_S DURATION_S LOG.csv
 *
 * MODE (the thread renames itself with prctl(PR_SET_NAME) so that every witness names it):
 *   fsync    comm ckpt_fsync:   PATH is a file of SIZE MiB (written and fsync'd once at start-up, logged as "prep");
 *                               every PERIOD_S seconds write() SIZE MiB over it in place (1 MiB writes), then fsync().
 *   msync    comm ckpt_msync:   PATH is a file of SIZE MiB mapped MAP_SHARED (prepared like fsync, then every page read
 *                               once); every PERIOD_S seconds store 8 bytes into every 4 KiB page of the mapping (SIZE MiB
 *                               dirtied), then msync(MS_SYNC).
 *   sfr      comm sfr_steps:    PATH is a new file appended at SIZE MiB per second in 1 MiB write()s (on a 1 s / SIZE
 *                               timer); after every completed 8 MiB step sync_file_range(step, 8 MiB,
 *                               SYNC_FILE_RANGE_WRITE) (RocksDB's bytes_per_sync). PERIOD_S is ignored.
 *   odirect  comm odirect_ckpt: PATH is a file of SIZE MiB (prepared with O_DIRECT writes + fsync); every PERIOD_S
 *                               seconds write SIZE MiB over it with O_DIRECT in 1 MiB aligned write()s; no fsync.
 *   append   comm small_append: PATH is a directory; every 100 ms append 4 KiB to PATH/append.log (buffered), and every
 *                               second create PATH/small-NNNNN (1 KiB, buffered); never fsync. SIZE and PERIOD_S ignored.
 * The timers are absolute (CLOCK_MONOTONIC, TIMER_ABSTIME: start + k * PERIOD_S), so the period does not drift.
 *
 * LOG.csv: a header line, then one line per operation:
 *   start_epoch,end_epoch,episode,op,offset,bytes,tid
 * (epoch = CLOCK_REALTIME seconds with 6 decimals; episode = the timer tick, 0 for start-up; op = prep, write, fsync,
 * dirty, msync, sfr, dwrite, append, create). A sibling LOG.info holds pid, tid, comm and the arguments.
 * Build: cc -O2 -o periodic_writer periodic_writer.c.  Written for this project. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024L * 1024L)
#define STEP (8L * MIB)

static FILE *logf;
static long tid;

static double now_epoch(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    fprintf(stderr, "periodic_writer: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void logop(double t0, long episode, const char *op, long long off, long long bytes) {
    fprintf(logf, "%.6f,%.6f,%ld,%s,%lld,%lld,%ld\n", t0, now_epoch(), episode, op, off, bytes, tid);
    fflush(logf);
}

/* sleep until start + k * period (CLOCK_MONOTONIC, absolute) */
static void sleep_until(const struct timespec *start, double offset_s) {
    struct timespec t = *start;
    long long ns = (long long)(offset_s * 1e9);
    t.tv_sec += ns / 1000000000LL;
    t.tv_nsec += ns % 1000000000LL;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
}

static double mono_since(const struct timespec *start) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - start->tv_sec) + (t.tv_nsec - start->tv_nsec) / 1e9;
}

static void full_write(int fd, const char *buf, size_t n, off_t off) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, buf + done, n - done, off + (off_t)done);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite");
        }
        done += (size_t)w;
    }
}

/* write SIZE MiB over the file in 1 MiB writes, one log line per write */
static void overwrite(int fd, char *buf, long mib, long episode, const char *op, int stamp) {
    for (long i = 0; i < mib; i++) {
        if (stamp) memset(buf, 'a' + (int)((episode + i) % 26), 4096); /* new content each time */
        double t0 = now_epoch();
        full_write(fd, buf, MIB, (off_t)(i * MIB));
        logop(t0, episode, op, i * MIB, MIB);
    }
}

static char *aligned_mib(void) {
    void *p;
    if (posix_memalign(&p, 4096, MIB)) die("posix_memalign");
    memset(p, 'x', MIB);
    return p;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: periodic_writer fsync|msync|sfr|odirect|append PATH SIZE PERIOD_S DURATION_S LOG.csv\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    long size = atol(argv[3]);
    double period = atof(argv[4]), duration = atof(argv[5]);
    const char *comm = !strcmp(mode, "fsync") ? "ckpt_fsync" : !strcmp(mode, "msync") ? "ckpt_msync"
                     : !strcmp(mode, "sfr") ? "sfr_steps" : !strcmp(mode, "odirect") ? "odirect_ckpt"
                     : !strcmp(mode, "append") ? "small_append" : NULL;
    if (!comm) {
        fprintf(stderr, "periodic_writer: unknown mode %s\n", mode);
        return 2;
    }
    if ((size <= 0 && strcmp(mode, "append")) || (period <= 0 && (!strcmp(mode, "fsync") || !strcmp(mode, "msync") || !strcmp(mode, "odirect")))) {
        fprintf(stderr, "periodic_writer: SIZE and PERIOD_S must be > 0\n");
        return 2;
    }
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    tid = syscall(SYS_gettid);
    logf = fopen(argv[6], "w");
    if (!logf) die(argv[6]);
    char info[4096];
    snprintf(info, sizeof info, "%s.info", argv[6]);
    FILE *inf = fopen(info, "w");
    if (!inf) die(info);
    fprintf(inf, "pid %d\ntid %ld\ncomm %s\nmode %s\npath %s\nsize_mib %ld\nperiod_s %g\nduration_s %g\nstart_epoch %.6f\n",
            getpid(), tid, comm, mode, path, size, period, duration, now_epoch());
    fclose(inf);
    fprintf(logf, "start_epoch,end_epoch,episode,op,offset,bytes,tid\n");

    struct timespec start;
    if (!strcmp(mode, "fsync") || !strcmp(mode, "msync")) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(path);
        char *buf = aligned_mib();
        overwrite(fd, buf, size, 0, "prep", 0);
        double t0 = now_epoch();
        if (fsync(fd)) die("fsync");
        logop(t0, 0, "fsync", 0, size * MIB);
        char *map = NULL;
        if (!strcmp(mode, "msync")) {
            map = mmap(NULL, size * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) die("mmap");
            volatile char sink = 0;
            for (long o = 0; o < size * MIB; o += 4096) sink ^= map[o];
            (void)sink;
        }
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (long k = 1; k * period <= duration; k++) {
            sleep_until(&start, k * period);
            if (map) {
                t0 = now_epoch();
                for (long o = 0; o < size * MIB; o += 4096) memcpy(map + o + 64, &k, sizeof k);
                logop(t0, k, "dirty", 0, size * MIB);
                t0 = now_epoch();
                if (msync(map, size * MIB, MS_SYNC)) die("msync");
                logop(t0, k, "msync", 0, size * MIB);
            } else {
                overwrite(fd, buf, size, k, "write", 1);
                t0 = now_epoch();
                if (fsync(fd)) die("fsync");
                logop(t0, k, "fsync", 0, size * MIB);
            }
        }
        if (map) munmap(map, size * MIB);
        close(fd);
    } else if (!strcmp(mode, "odirect")) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
        if (fd < 0) die(path);
        char *buf = aligned_mib();
        overwrite(fd, buf, size, 0, "prep", 0);
        double t0 = now_epoch();
        if (fsync(fd)) die("fsync");
        logop(t0, 0, "fsync", 0, size * MIB);
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (long k = 1; k * period <= duration; k++) {
            sleep_until(&start, k * period);
            overwrite(fd, buf, size, k, "dwrite", 1);
        }
        close(fd);
    } else if (!strcmp(mode, "sfr")) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(path);
        char *buf = aligned_mib();
        clock_gettime(CLOCK_MONOTONIC, &start);
        long long off = 0;
        for (long k = 1; mono_since(&start) < duration; k++) {
            double t0 = now_epoch();
            full_write(fd, buf, MIB, off);
            logop(t0, off / STEP + 1, "write", off, MIB);
            off += MIB;
            if (off % STEP == 0) {
                t0 = now_epoch();
                if (sync_file_range(fd, off - STEP, STEP, SYNC_FILE_RANGE_WRITE)) die("sync_file_range");
                logop(t0, off / STEP, "sfr", off - STEP, STEP);
            }
            sleep_until(&start, (double)k / (double)size);
        }
        close(fd);
    } else { /* append */
        char name[4096];
        snprintf(name, sizeof name, "%s/append.log", path);
        int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
        if (fd < 0) die(name);
        char small[4096];
        memset(small, 's', sizeof small);
        clock_gettime(CLOCK_MONOTONIC, &start);
        long long total = 0;
        for (long k = 1; k * 0.1 <= duration; k++) {
            sleep_until(&start, k * 0.1);
            double t0 = now_epoch();
            if (write(fd, small, 4096) != 4096) die("write");
            logop(t0, k / 10, "append", total, 4096);
            total += 4096;
            if (k % 10 == 0) {
                snprintf(name, sizeof name, "%s/small-%05ld", path, k / 10);
                t0 = now_epoch();
                int f2 = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (f2 < 0) die(name);
                if (write(f2, small, 1024) != 1024) die("write small");
                close(f2);
                logop(t0, k / 10, "create", 0, 1024);
            }
        }
        close(fd);
    }
    fclose(logf);
    return 0;
}
