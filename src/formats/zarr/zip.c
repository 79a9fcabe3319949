/* zip.c - Zarr stores in zip files (zarr-python's ZipStore), read in place: the central
 * directory (zip64 too) into a sorted index of entries, every claim bounded by the file size. */
#include <stdlib.h>
#include <string.h>

#include "../../codecs/codecs.h"
#include "../../core/file.h"
#include "../open.h"
#include "zarr.h"

/* The central directory is read whole: more than this is not a Zarr store's. */
#define TSR_ZIP_MAX_CD ((uint64_t)1 << 30)

static uint16_t tsr_zle16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t tsr_zle32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t tsr_zle64(const unsigned char *p)
{
	return (uint64_t)tsr_zle32(p) | ((uint64_t)tsr_zle32(p + 4) << 32);
}

int tsr_zarr_sniff_zip(const char *path, const unsigned char *head, size_t n)
{
	size_t len = strlen(path);
	if (len > 4 && !strcmp(path + len - 4, ".zip"))
		return 1; /* named so: a damaged zip still gets the zip reader's verdict */
	return n >= 4 && head[0] == 'P' && head[1] == 'K' &&
	       ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6));
}

static int tsr_zip_cmp(const void *a, const void *b)
{
	const struct tsr_zip_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

void tsr_zip_free(struct tsr_zip *zip)
{
	if (!zip)
		return;
	free(zip->entries);
	free(zip->cd);
	free(zip->root);
	free(zip);
}

/* Finds the end of central directory record (and the zip64 one): where the directory is and
 * how many entries it claims. */
static int tsr_zip_eocd(int fd, uint64_t size, uint64_t *cd_off, uint64_t *cd_size,
			uint64_t *count)
{
	unsigned char tail[22 + 65535 + 20];
	size_t n = size < sizeof(tail) ? (size_t)size : sizeof(tail);
	uint64_t base = size - n;
	int st;
	if (n < 22)
		return tsr_error(TSR_E_FORMAT, "not a zip file (%llu bytes)", (unsigned long long)size);
	if ((st = tsr_file_pread(fd, tail, n, base)))
		return st;
	size_t at = n - 22 + 1;
	while (at-- > 0) {
		if (tsr_zle32(tail + at) == 0x06054b50 && at + 22 + tsr_zle16(tail + at + 20) == n)
			break;
		if (at == 0)
			return tsr_error(TSR_E_FORMAT, "zip: no end of central directory record");
	}
	const unsigned char *e = tail + at;
	if (tsr_zle16(e + 4) != 0 || tsr_zle16(e + 6) != 0)
		return tsr_error(TSR_E_UNSUPPORTED, "zip: archives split over several disks");
	*count = tsr_zle16(e + 10);
	*cd_size = tsr_zle32(e + 12);
	*cd_off = tsr_zle32(e + 16);
	uint64_t eocd = base + at;
	if (*count == 0xffff || *cd_size == 0xffffffffu || *cd_off == 0xffffffffu) {
		/* zip64: a locator right before the record says where the zip64 record is */
		unsigned char loc[20], rec[56];
		if (eocd < 20 || (st = tsr_file_pread(fd, loc, 20, eocd - 20)))
			return st ? st : tsr_error(TSR_E_FORMAT, "zip: no zip64 end of central "
						   "directory locator");
		if (tsr_zle32(loc) != 0x07064b50)
			return tsr_error(TSR_E_FORMAT, "zip: no zip64 end of central directory locator");
		uint64_t r = tsr_zle64(loc + 8);
		if (r > eocd - 20 || eocd - 20 - r < 56)
			return tsr_error(TSR_E_FORMAT, "zip: zip64 record at %llu lies outside the file",
					 (unsigned long long)r);
		if ((st = tsr_file_pread(fd, rec, 56, r)))
			return st;
		if (tsr_zle32(rec) != 0x06064b50)
			return tsr_error(TSR_E_FORMAT, "zip: bad zip64 end of central directory record");
		*count = tsr_zle64(rec + 32);
		*cd_size = tsr_zle64(rec + 40);
		*cd_off = tsr_zle64(rec + 48);
		eocd = r;
	}
	if (*cd_off > eocd || *cd_size > eocd - *cd_off)
		return tsr_error(TSR_E_FORMAT, "zip: central directory (%llu bytes at %llu) lies "
				 "outside the file", (unsigned long long)*cd_size,
				 (unsigned long long)*cd_off);
	if (*cd_size > TSR_ZIP_MAX_CD)
		return tsr_error(TSR_E_UNSUPPORTED, "zip: central directory of %llu bytes",
				 (unsigned long long)*cd_size);
	if (*count > *cd_size / 46)
		return tsr_error(TSR_E_FORMAT, "zip: %llu entries cannot fit a central directory of "
				 "%llu bytes", (unsigned long long)*count, (unsigned long long)*cd_size);
	return TSR_OK;
}

/* The zip64 extended information of an entry: the fields whose 32-bit value is all ones. */
static int tsr_zip_extra64(const unsigned char *x, size_t xn, struct tsr_zip_entry *e,
			   int need_u, int need_c, int need_o)
{
	while (xn >= 4) {
		uint16_t id = tsr_zle16(x), len = tsr_zle16(x + 2);
		if ((size_t)len > xn - 4)
			break;
		if (id == 1) {
			const unsigned char *p = x + 4;
			size_t left = len;
			uint64_t *dst[3] = {need_u ? &e->usize : NULL, need_c ? &e->csize : NULL,
					    need_o ? &e->local : NULL};
			for (int i = 0; i < 3; i++) {
				if (!dst[i])
					continue;
				if (left < 8)
					return tsr_error(TSR_E_FORMAT, "zip: entry '%s': short zip64 "
							 "field", e->name);
				*dst[i] = tsr_zle64(p);
				p += 8;
				left -= 8;
			}
			return TSR_OK;
		}
		x += 4 + len;
		xn -= 4 + (size_t)len;
	}
	if (need_u || need_c || need_o)
		return tsr_error(TSR_E_FORMAT, "zip: entry '%s' lacks its zip64 sizes", e->name);
	return TSR_OK;
}

int tsr_zip_open(const char *root, int fd, uint64_t size, struct tsr_zip **zip_ret)
{
	uint64_t cd_off, cd_size, count;
	int st;
	*zip_ret = NULL;
	if ((st = tsr_zip_eocd(fd, size, &cd_off, &cd_size, &count)))
		return st;
	struct tsr_zip *z = calloc(1, sizeof(*z));
	if (!z)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	z->fd = fd;
	z->size = size;
	z->root = strdup(root);
	z->cd = malloc((size_t)cd_size + 1);
	z->entries = calloc(count ? (size_t)count : 1, sizeof(*z->entries));
	if (!z->root || !z->cd || !z->entries) {
		tsr_zip_free(z);
		return tsr_error(TSR_E_NOMEM, "out of memory for a zip directory of %llu bytes",
				 (unsigned long long)cd_size);
	}
	if ((st = tsr_file_pread(fd, z->cd, (size_t)cd_size, cd_off))) {
		tsr_zip_free(z);
		return st;
	}
	unsigned char *p = z->cd, *end = z->cd + cd_size;
	for (uint64_t i = 0; i < count; i++) {
		struct tsr_zip_entry *e = &z->entries[i];
		if (end - p < 46 || tsr_zle32(p) != 0x02014b50) {
			tsr_zip_free(z);
			return tsr_error(TSR_E_FORMAT, "zip: central directory entry %llu is malformed",
					 (unsigned long long)i);
		}
		size_t nl = tsr_zle16(p + 28), xl = tsr_zle16(p + 30), cl = tsr_zle16(p + 32);
		if ((size_t)(end - p) - 46 < nl + xl + cl) {
			tsr_zip_free(z);
			return tsr_error(TSR_E_FORMAT, "zip: central directory entry %llu runs past the "
					 "directory", (unsigned long long)i);
		}
		e->flags = tsr_zle16(p + 8);
		e->method = tsr_zle16(p + 10);
		e->csize = tsr_zle32(p + 20);
		e->usize = tsr_zle32(p + 24);
		e->local = tsr_zle32(p + 42);
		e->order = (uint32_t)i;
		unsigned char *x = p + 46 + nl;
		int need_u = e->usize == 0xffffffffu, need_c = e->csize == 0xffffffffu,
		    need_o = e->local == 0xffffffffu;
		/* the name moves over its entry's header (read already) and gets its NUL there */
		memmove(p, p + 46, nl);
		e->name = (char *)p;
		p[nl] = '\0';
		if (memchr(p, '\0', nl)) {
			tsr_zip_free(z);
			return tsr_error(TSR_E_FORMAT, "zip: entry %llu has a NUL in its name",
					 (unsigned long long)i);
		}
		if ((st = tsr_zip_extra64(x, xl, e, need_u, need_c, need_o))) {
			tsr_zip_free(z);
			return st;
		}
		if (e->local > size || e->csize > size) {
			st = tsr_error(TSR_E_FORMAT, "zip: entry '%s' (%llu bytes at %llu) lies outside "
				       "the file of %llu bytes", e->name, (unsigned long long)e->csize,
				       (unsigned long long)e->local, (unsigned long long)size);
			tsr_zip_free(z);
			return st;
		}
		p = x + xl + cl;
	}
	z->n = (size_t)count;
	qsort(z->entries, z->n, sizeof(*z->entries), tsr_zip_cmp);
	*zip_ret = z;
	return TSR_OK;
}

const struct tsr_zip_entry *tsr_zip_find(const struct tsr_zip *z, const char *key)
{
	size_t lo = 0, hi = z->n;
	while (lo < hi) { /* the first entry not before key */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(z->entries[mid].name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == z->n || strcmp(z->entries[lo].name, key))
		return NULL;
	/* a name written twice: the last one counts, as Python's zipfile reads it */
	while (lo + 1 < z->n && !strcmp(z->entries[lo + 1].name, key))
		lo++;
	return &z->entries[lo];
}

int tsr_zip_data(const struct tsr_zip *z, const struct tsr_zip_entry *e, uint64_t *offset_ret)
{
	unsigned char h[30];
	int st;
	if (e->flags & 1)
		return tsr_error(TSR_E_UNSUPPORTED, "zip: entry '%s' is encrypted", e->name);
	if (e->method != 0 && e->method != 8)
		return tsr_error(TSR_E_UNSUPPORTED, "zip: entry '%s' uses compression method %u "
				 "(stored and deflated are supported)", e->name, e->method);
	if (e->local > z->size || z->size - e->local < 30)
		return tsr_error(TSR_E_FORMAT, "zip: entry '%s': local header lies outside the file",
				 e->name);
	if ((st = tsr_file_pread(z->fd, h, 30, e->local)))
		return st;
	if (tsr_zle32(h) != 0x04034b50)
		return tsr_error(TSR_E_FORMAT, "zip: entry '%s': no local header at %llu", e->name,
				 (unsigned long long)e->local);
	uint64_t at = e->local + 30 + tsr_zle16(h + 26) + tsr_zle16(h + 28);
	if (at > z->size || e->csize > z->size - at)
		return tsr_error(TSR_E_FORMAT, "zip: entry '%s' (%llu bytes at %llu) runs past the end "
				 "of the file", e->name, (unsigned long long)e->csize,
				 (unsigned long long)at);
	*offset_ret = at;
	return TSR_OK;
}

int tsr_zip_read(const struct tsr_zip *z, const struct tsr_zip_entry *e, size_t max,
		 char **text_ret, size_t *n_ret)
{
	uint64_t at = 0;
	int st;
	*text_ret = NULL;
	if ((st = tsr_zip_data(z, e, &at)))
		return st;
	uint64_t n = e->method ? e->usize : e->csize;
	if (n > max || e->csize > max)
		return tsr_error(TSR_E_FORMAT, "zip: entry '%s' of %llu bytes is too large", e->name,
				 (unsigned long long)n);
	char *raw = malloc((size_t)e->csize + 1), *out = NULL;
	if (!raw)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	if ((st = tsr_file_pread(z->fd, raw, (size_t)e->csize, at))) {
		free(raw);
		return st;
	}
	if (e->method == 0) {
		out = raw;
	} else {
		void *inflater = NULL;
		size_t got = 0;
		out = malloc((size_t)n + 1);
		if (!out) {
			free(raw);
			return tsr_error(TSR_E_NOMEM, "out of memory");
		}
		st = tsr_inflate(&inflater, TSR_CODEC_DEFLATE, out, (size_t)n, raw, (size_t)e->csize,
				 &got);
		tsr_inflate_free(inflater);
		free(raw);
		if (!st && got != n)
			st = tsr_error(TSR_E_CORRUPT, "inflates to %zu bytes, not %llu", got,
				       (unsigned long long)n);
		if (st) {
			free(out);
			tsr_error_prefix("zip: entry '%s'", e->name);
			return st;
		}
	}
	out[n] = '\0';
	*text_ret = out;
	*n_ret = (size_t)n;
	return TSR_OK;
}

/* ---- the store being opened on this thread: metadata paths under its root are entries ---- */

static _Thread_local const struct tsr_zip *tsr_zarr_cur_zip;

void tsr_zarr_zip_enter(const struct tsr_zip *z)
{
	tsr_zarr_cur_zip = z;
}

const struct tsr_zip *tsr_zarr_zip_of(const char *path, const char **key_ret)
{
	const struct tsr_zip *z = tsr_zarr_cur_zip;
	if (!z)
		return NULL;
	size_t n = strlen(z->root);
	if (strncmp(path, z->root, n) || path[n] != '/')
		return NULL;
	*key_ret = path + n + 1;
	return z;
}

int tsr_zarr_zip_ref(const struct tsr_zarr *z, struct tsr_chunk_ref *ref)
{
	const struct tsr_zip *zip = z->zip;
	size_t n = strlen(zip->root);
	if (strncmp(ref->path, zip->root, n) || ref->path[n] != '/')
		return tsr_error(TSR_E_INTERNAL, "chunk path outside the zip store");
	const struct tsr_zip_entry *e = tsr_zip_find(zip, ref->path + n + 1);
	uint64_t at = 0;
	int st;
	if (!e) {
		tsr_chunk_set_fill(ref); /* a chunk never written */
		ref->path[0] = '\0';
		return TSR_OK;
	}
	if ((st = tsr_zip_data(zip, e, &at)))
		return st;
	if (e->method == 8) {
		/* a deflated entry: one more bytes step, undone first */
		if (ref->npre >= TSR_MAX_PRE)
			return tsr_error(TSR_E_UNSUPPORTED, "zip: entry '%s' is deflated and its chunk "
					 "has %d bytes codecs already", e->name, ref->npre);
		memmove(&ref->pre[1], &ref->pre[0], sizeof(ref->pre[0]) * (size_t)ref->npre);
		ref->pre[0].id = TSR_CODEC_DEFLATE;
		ref->npre++;
	}
	ref->path[0] = '\0'; /* the array's own file: the zip */
	ref->offset = at;
	ref->nbytes = e->csize;
	ref->missing_is_fill = 0;
	return TSR_OK;
}

int tsr_zarr_zip_shard(const struct tsr_zarr *z, const struct tsr_chunk_ref *ref, int *fd_ret,
		       uint64_t *base_ret, uint64_t *size_ret)
{
	const struct tsr_zip *zip = z->zip;
	size_t n = strlen(zip->root);
	if (strncmp(ref->path, zip->root, n) || ref->path[n] != '/')
		return tsr_error(TSR_E_INTERNAL, "shard path outside the zip store");
	const struct tsr_zip_entry *e = tsr_zip_find(zip, ref->path + n + 1);
	int st;
	if (!e)
		return tsr_error(TSR_E_NOT_FOUND, "no shard");
	if ((st = tsr_zip_data(zip, e, base_ret)))
		return st;
	if (e->method != 0)
		return tsr_error(TSR_E_UNSUPPORTED, "zip: shard '%s' is deflated (a shard's inner "
				 "chunks are read by offset: only stored shards)", e->name);
	*fd_ret = zip->fd;
	*size_ret = e->csize;
	return TSR_OK;
}

const struct tsr_zip *tsr_zarr_zip_root(const char *store)
{
	const struct tsr_zip *z = tsr_zarr_cur_zip;
	return z && !strcmp(z->root, store) ? z : NULL;
}

int tsr_zarr_list_zip(const char *path, char ***names_ret, size_t *count_ret)
{
	int fd, st;
	uint64_t size;
	unsigned char head[4] = {0};
	struct tsr_zip *zip = NULL;
	*names_ret = NULL;
	*count_ret = 0;
	if ((st = tsr_file_open(path, &fd, &size)))
		return st;
	if (size >= 4 && (st = tsr_file_pread(fd, head, 4, 0)))
		goto done;
	if (!tsr_zarr_sniff_zip(path, head, size < 4 ? (size_t)size : 4)) {
		st = tsr_error(TSR_E_FORMAT, "%s: not a Zarr store (not a directory or a zip file)",
			       path);
		goto done;
	}
	if ((st = tsr_zip_open(path, fd, size, &zip))) {
		tsr_error_prefix("%s", path);
		goto done;
	}
	tsr_zarr_zip_enter(zip);
	st = tsr_zarr_list(path, names_ret, count_ret);
	tsr_zarr_zip_enter(NULL);
done:
	tsr_zip_free(zip);
	tsr_file_close(fd);
	return st;
}
