/* test_list_refused_root.c - tsr_list_arrays on stores whose root metadata loads and is then
 * refused (v3 zarr_format not 3, an unknown node_type, a broken .zattrs beside a good .zgroup:
 * an array's .zattrs no longer stops it listing, test_zarr_attrs_apart.py)
 * fails and frees what it loaded: it once leaked the root node on that path (issue 21, D4).
 * The heap in use must not grow over many calls (glibc's mallinfo2; under ASan, whose
 * allocator it does not see, LeakSanitizer checks the same at exit). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

int main(void)
{
	static const char *const cases[][3] = {
		{"zarr.json", "{\"zarr_format\": 2, \"node_type\": \"group\", \"attributes\": {\"a\": "
			      "[1, 2, 3]}}", "zarr_format is not 3"},
		{"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"banana\", \"attributes\": {}}",
		 "node_type"},
		{".zattrs", "{\"broken\": ", "not valid JSON"},
	};
	/* the root's own document: an array's for the first two, a group's under the .zattrs */
	static const char *const root[][2] = {
		{".zarray", "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
			    "\"<i4\", \"compressor\": null, \"fill_value\": 0, \"order\": "
			    "\"C\", \"filters\": null}"},
		{".zarray", NULL},
		{".zgroup", "{\"zarr_format\": 2}"},
	};
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/tsr_list_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		if (root[c][1])
			check_put_file(dir, root[c][0], root[c][1]);
		if (c == 2) { /* (no .zarray under the group) */
			char z[256];
			snprintf(z, sizeof(z), "%s/.zarray", dir);
			remove(z);
		}
		check_put_file(dir, cases[c][0], cases[c][1]);
		char **names = (char **)&names; /* must come back NULL */
		size_t count = 7;
		int st = tsr_list_arrays(dir, &names, &count);
		CHECK_EQ_INT(st, TSR_E_FORMAT);
		CHECK(names == NULL && count == 0);
		if (!strstr(tsr_errmsg(), cases[c][2]) || !strstr(tsr_errmsg(), dir)) {
			fprintf(stderr, "case %zu: message lacks '%s' or the store: %s\n", c,
				cases[c][2], tsr_errmsg());
			check_failures++;
		}
		size_t before = mallinfo2().uordblks;
		for (int i = 0; i < 300; i++)
			tsr_list_arrays(dir, &names, &count);
		size_t after = mallinfo2().uordblks;
		if (after > before + 4096) {
			fprintf(stderr, "case %zu: the heap grew by %zu bytes over 300 failed listings\n",
				c, after - before);
			check_failures++;
		}
		char p[256];
		snprintf(p, sizeof(p), "%s/%s", dir, cases[c][0]);
		remove(p);
	}
	char p[256];
	snprintf(p, sizeof(p), "%s/.zgroup", dir);
	remove(p);
	rmdir(dir);
	printf("refused roots listed without leaks\n");
	CHECK_DONE();
}
