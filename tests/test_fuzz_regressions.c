/* test_fuzz_regressions.c - every input a fuzz target once failed on (tests/data/fuzz-regressions/
 * TARGET/) runs through that target's harness again; the ASan+UBSan suite makes any relapse abort. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The harnesses, each under its own name. */
#define LLVMFuzzerTestOneInput tsr_fuzz_fits
#include "fuzz/fits/fuzz.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput tsr_fuzz_zarr
#include "fuzz/zarr/fuzz.c"
#undef LLVMFuzzerTestOneInput

static int run_dir(const char *src, const char *target, int (*fn)(const uint8_t *, size_t))
{
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s/tests/data/fuzz-regressions/%s", src, target);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "FAIL: cannot open %s\n", dir);
		return -1;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		fn(buf, len);
		printf("%s: %s (%zu bytes): ok\n", target, e->d_name, len);
		n++;
	}
	closedir(d);
	return n;
}

int main(void)
{
	const char *src = getenv("TSR_SRC");
	src = src ? src : "..";
	int a = run_dir(src, "fits", tsr_fuzz_fits), b = run_dir(src, "zarr", tsr_fuzz_zarr);
	if (a < 1 || b < 1) {
		fprintf(stderr, "FAIL: no regression inputs found\n");
		return 1;
	}
	printf("%d inputs replayed\n", a + b);
	return 0;
}
