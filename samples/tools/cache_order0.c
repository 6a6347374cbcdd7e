/* cache_order0 - make the page cache hold FILE in order-0 (4 KiB) folios.
 * usage: cache_order0 FILE
 * fdatasync, drop the file's cached pages (POSIX_FADV_DONTNEED), mark it POSIX_FADV_RANDOM
 * (no read-ahead, so no large folios) and read it back one 4 KiB pread at a time.
 * Build: cc -O2 -o cache_order0 cache_order0.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) { perror("open"); return 1; }
	struct stat st;
	if (fstat(fd, &st) != 0 || fdatasync(fd) != 0) { perror("fstat/fdatasync"); return 1; }
	int e1 = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	int e2 = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	char page[4096];
	long n = 0;
	for (off_t o = 0; o + 4096 <= st.st_size; o += 4096, n++)
		if (pread(fd, page, sizeof page, o) != (ssize_t)sizeof page) { perror("pread"); return 1; }
	printf("cache_order0 %s: fadvise DONTNEED rc=%d RANDOM rc=%d, re-read %ld pages with 4 KiB preads\n", argv[1], e1, e2, n);
	return 0;
}
