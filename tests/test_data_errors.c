/* test_data_errors.c - the golden bad inputs of tests/data-errors/: each must fail at the step
 * and with the exact status its README.md row gives, with one line naming the file; the table
 * is read from the README so the manifest and the test cannot drift apart. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

#define MAX_ROWS 64
#define MAX_WANT 8

struct row {
	char file[128];
	char phase[16];   /* "open" or "read" */
	char status[32];  /* "TSR_E_..." */
	char want[MAX_WANT][128];
	int nwant;
};

/* The backquoted strings of one table cell, in order. */
static int quoted(const char *cell, size_t len, char out[][128], int max)
{
	int n = 0;
	const char *end = cell + len;
	for (const char *p = cell; p < end && n < max; p++) {
		if (*p != '`')
			continue;
		const char *q = memchr(p + 1, '`', (size_t)(end - p - 1));
		if (!q || (size_t)(q - p - 1) >= sizeof(out[0]))
			break;
		memcpy(out[n], p + 1, (size_t)(q - p - 1));
		out[n][q - p - 1] = '\0';
		n++;
		p = q;
	}
	return n;
}

/* Rows of the README's table: lines "| `file` | phase | `status` | `want`, ... | why |". */
static int read_table(const char *readme, struct row *rows)
{
	FILE *f = fopen(readme, "r");
	if (!f) {
		perror(readme);
		return -1;
	}
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof(line), f) && n < MAX_ROWS) {
		if (strncmp(line, "| `", 3) != 0)
			continue;
		const char *cell[6];
		size_t len[6];
		int nc = 0;
		for (const char *p = line + 1; nc < 6 && *p && *p != '\n';) {
			const char *bar = strchr(p, '|');
			if (!bar)
				break;
			cell[nc] = p;
			len[nc++] = (size_t)(bar - p);
			p = bar + 1;
		}
		struct row *r = &rows[n];
		char one[1][128];
		memset(r, 0, sizeof(*r));
		if (nc < 5 || quoted(cell[0], len[0], one, 1) != 1) {
			fprintf(stderr, "%s: bad table row: %s", readme, line);
			check_failures++;
			continue;
		}
		snprintf(r->file, sizeof(r->file), "%s", one[0]);
		if (quoted(cell[2], len[2], one, 1) != 1) {
			fprintf(stderr, "%s: row %s has no status\n", readme, r->file);
			check_failures++;
			continue;
		}
		snprintf(r->status, sizeof(r->status), "%s", one[0]);
		const char *p = cell[1];
		size_t l = len[1];
		while (l && *p == ' ')
			p++, l--;
		while (l && p[l - 1] == ' ')
			l--;
		snprintf(r->phase, sizeof(r->phase), "%.*s", (int)l, p);
		r->nwant = quoted(cell[3], len[3], r->want, MAX_WANT);
		n++;
	}
	fclose(f);
	return n;
}

/* The message of the last failure: one line, naming the file, holding every wanted string. */
static void check_message(const struct row *r, const char *how)
{
	const char *msg = tsr_errmsg();
	int ok = strstr(msg, r->file) != NULL && !strchr(msg, '\n');
	for (int i = 0; i < r->nwant; i++)
		ok = ok && strstr(msg, r->want[i]) != NULL;
	if (!ok) {
		fprintf(stderr, "%s (%s): message lacks the file or a wanted string: %s\n", r->file,
			how, msg);
		check_failures++;
	}
}

/* Opens and reads the input whole, once on the caller's thread (tsr_read_alloc) and once on
 * the context's pool (tsr_read into the caller's buffer). */
static void check_row(struct tsr_context *ctx, const char *dir, const struct row *r)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", dir, r->file);
	int at_open = strcmp(r->phase, "open") == 0;
	if (!at_open && strcmp(r->phase, "read") != 0) {
		fprintf(stderr, "%s: phase '%s' is neither open nor read\n", r->file, r->phase);
		check_failures++;
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *how = pass ? "tsr_read, pool" : "tsr_read_alloc, caller's thread";
		struct tsr_array *a = NULL;
		int st = tsr_open(ctx, path, NULL, &a);
		if (at_open) {
			if (st == TSR_OK) {
				fprintf(stderr, "%s: opened; want %s at open\n", r->file, r->status);
				check_failures++;
			} else {
				CHECK(a == NULL);
			}
		} else if (st != TSR_OK) {
			fprintf(stderr, "%s: open failed (%s: %s); want it to fail at read\n", r->file,
				tsr_status_name(st), tsr_errmsg());
			check_failures++;
		} else {
			struct tsr_read_options ro = {.struct_size = sizeof(ro)};
			ro.nthreads = pass ? 0 : 1;
			if (pass == 0) {
				void *data = &data; /* must come back NULL */
				size_t nbytes = 1;
				int ndim;
				int64_t shape[TSR_MAX_DIM];
				st = tsr_read_alloc(a, NULL, &ro, &data, &nbytes, &ndim, shape, NULL);
				CHECK(st == TSR_OK || (data == NULL && nbytes == 0));
				if (st == TSR_OK)
					tsr_free(data);
			} else {
				struct tsr_array_info in = {.struct_size = sizeof(in)};
				tsr_array_info(a, &in);
				size_t nb = tsr_dtype_size(in.dtype);
				for (int i = 0; i < in.ndim; i++)
					nb *= (size_t)in.shape[i];
				void *buf = malloc(nb ? nb : 1);
				struct tsr_buffer dst = {buf, nb, TSR_MEM_HOST, NULL};
				struct tsr_receipt rc = {.struct_size = sizeof(rc)};
				st = buf ? tsr_read(a, NULL, &dst, &ro, &rc) : TSR_E_NOMEM;
				/* a failed read reports no output bytes */
				CHECK(st == TSR_OK || rc.bytes_out == 0);
				free(buf);
			}
			if (st == TSR_OK) {
				fprintf(stderr, "%s (%s): read succeeded; want %s\n", r->file, how,
					r->status);
				check_failures++;
			}
		}
		tsr_array_free(a);
		if (st == TSR_OK)
			continue;
		if (strcmp(tsr_status_name(st), r->status) != 0) {
			fprintf(stderr, "%s (%s): %s, want %s: %s\n", r->file, how, tsr_status_name(st),
				r->status, tsr_errmsg());
			check_failures++;
		}
		check_message(r, how);
		if (pass == 0)
			printf("%-38s %-4s %-18s %s\n", r->file, r->phase, tsr_status_name(st),
			       tsr_errmsg());
	}
}

int main(void)
{
	const char *src = getenv("TSR_SRC"), *corpus = getenv("TSR_CORPUS");
	char dir[1024], readme[1100];
	snprintf(dir, sizeof(dir), "%s/tests/data-errors", src ? src : "../..");
	snprintf(readme, sizeof(readme), "%s/README.md", dir);
	static struct row rows[MAX_ROWS];
	int n = read_table(readme, rows);
	if (n < 0)
		return 1;
	/* issue 8: one file per failure class; the classes this folder must cover */
	CHECK(n >= 12);

	/* Every input in the folder has a row, and every row an input. */
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	struct dirent *e;
	int files = 0;
	while (d && (e = readdir(d))) {
		const char *nm = e->d_name;
		if (nm[0] == '.' || !strcmp(nm, "README.md") || !strcmp(nm, "make.py") ||
		    !strcmp(nm, "__pycache__"))
			continue;
		files++;
		int found = 0;
		for (int i = 0; i < n; i++)
			found |= strcmp(rows[i].file, e->d_name) == 0;
		if (!found) {
			fprintf(stderr, "%s/%s has no row in README.md\n", dir, e->d_name);
			check_failures++;
		}
	}
	if (d)
		closedir(d);
	CHECK_EQ_INT(files, n);

	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	for (int i = 0; i < n; i++)
		check_row(ctx, dir, &rows[i]);

	/* After all those failures the context still reads a good file. */
	char good[1100];
	snprintf(good, sizeof(good), "%s/fits/u_i16_primary.fits",
		 corpus ? corpus : "../../shared/corpus");
	struct tsr_array *a = NULL;
	void *data = NULL;
	size_t nbytes;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_open(ctx, good, NULL, &a), TSR_OK);
	if (a)
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &ndim, shape, NULL), TSR_OK);
	CHECK(data && nbytes == 200 * 300 * 2);
	tsr_free(data);
	tsr_array_free(a);
	tsr_context_free(ctx);
	printf("%d golden bad inputs, each failed with its status twice\n", n);
	CHECK_DONE();
}
