/* folio_probe - report the page-cache folio sizes backing a file (needs root).
 *
 * usage: folio_probe [-r] FILE
 * -r: resident pages only (issue 38): mincore() first, and only the pages already in the page cache are touched
 *     and counted (the others are "not_resident"), so the probe reads nothing in and leaves the cache as it was.
 * Maps FILE read-only, touches every 4 KiB page (a read: no dirtying), looks up each page's PFN in
 * /proc/self/pagemap and its flags in /proc/kpageflags, and prints a histogram of folio sizes:
 * a folio is a run of one KPF_COMPOUND_HEAD page followed by KPF_COMPOUND_TAIL pages (or a single
 * page with neither bit = an order-0 folio).  Reading the file may itself populate the page cache
 * (read-ahead), so run it after the cache was prepared, not to prepare it.
 * Build: cc -O2 -o folio_probe folio_probe.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_THP 22

int main(int argc, char **argv)
{
	int resident_only = argc == 3 && argv[1][0] == '-' && argv[1][1] == 'r';
	if (argc != 2 && !resident_only) { fprintf(stderr, "usage: %s [-r] FILE\n", argv[0]); return 2; }
	const char *path = argv[argc - 1];
	int fd = open(path, O_RDONLY);
	if (fd < 0) { perror("open"); return 1; }
	struct stat st;
	fstat(fd, &st);
	size_t pages = (size_t)st.st_size / 4096;
	unsigned char *m = mmap(NULL, pages * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) { perror("mmap"); return 1; }
	unsigned char *inc = calloc(pages ? pages : 1, 1);
	if (!inc) return 1;
	if (resident_only && mincore(m, pages * 4096, inc) != 0) { perror("mincore"); return 1; }
	unsigned long not_resident = 0;
	volatile unsigned sum = 0;
	for (size_t i = 0; i < pages; i++) {
		if (resident_only && !(inc[i] & 1)) { not_resident++; continue; }
		sum += m[i * 4096];
	}
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kf < 0) { perror("open pagemap/kpageflags"); return 1; }
	unsigned long hist[32] = {0}, thp = 0, absent = 0;
	size_t run = 0; /* pages in the current folio */
	for (size_t i = 0; i <= pages; i++) {
		int head = 0, tail = 0, present = 1;
		if (i < pages) {
			uint64_t e = 0, f = 0;
			off_t off = (off_t)(((uintptr_t)m / 4096 + i) * 8);
			if ((resident_only && !(inc[i] & 1)) || pread(pm, &e, 8, off) != 8 || !(e >> 63)) { absent++; present = 0; }
			else {
				uint64_t pfn = e & ((1ULL << 55) - 1);
				if (pread(kf, &f, 8, (off_t)(pfn * 8)) == 8) {
					head = (f >> KPF_COMPOUND_HEAD) & 1;
					tail = (f >> KPF_COMPOUND_TAIL) & 1;
					if ((f >> KPF_THP) & 1) thp++;
				}
			}
		}
		if (tail && run > 0) { run++; continue; }
		if (run > 0) { int o = 0; while ((1UL << (o + 1)) <= run) o++; hist[o]++; }
		run = (i < pages && present) ? 1 : 0;
		(void)head;
	}
	if (resident_only) printf("resident_only not_resident %lu\n", not_resident);
	printf("file %s pages %zu not_present %lu kpf_thp_pages %lu\n", path, pages, absent, thp);
	printf("folio_kib,folios,pages\n");
	for (int o = 0; o < 32; o++)
		if (hist[o]) printf("%lu,%lu,%lu\n", 4UL << o, hist[o], hist[o] << o);
	return 0;
}
