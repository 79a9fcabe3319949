/* options.c - tsr_options_load: the one rule by which every entry point reads a caller's options struct, and its use for each public struct. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* The options structs' layouts are part of the ABI: a binary built against an older tessera.h
 * passes them as that header laid them out. tsr_read_options' decoder and storage were int
 * fields; as enums they must keep an int's size and place. */
struct tsr_read_options_ints {
	size_t struct_size;
	int nthreads, decoder, storage;
	const int *devices;
	int ndevices;
	int (*stop)(void *);
	void *stop_arg;
};
#define TSR_SAME_FIELD(f)                                                                     \
	_Static_assert(offsetof(struct tsr_read_options, f) ==                                \
			       offsetof(struct tsr_read_options_ints, f) &&                   \
			       sizeof(((struct tsr_read_options *)0)->f) ==                   \
				       sizeof(((struct tsr_read_options_ints *)0)->f),        \
		       "tsr_read_options." #f " moved or changed size")
TSR_SAME_FIELD(nthreads);
TSR_SAME_FIELD(decoder);
TSR_SAME_FIELD(storage);
TSR_SAME_FIELD(devices);
TSR_SAME_FIELD(ndevices);
TSR_SAME_FIELD(stop);
TSR_SAME_FIELD(stop_arg);
_Static_assert(sizeof(struct tsr_read_options) == sizeof(struct tsr_read_options_ints),
	       "tsr_read_options changed size");
_Static_assert(sizeof(enum tsr_decoder) == sizeof(int) && sizeof(enum tsr_storage) == sizeof(int) &&
		       sizeof(enum tsr_mem) == sizeof(int) && sizeof(enum tsr_dtype) == sizeof(int) &&
		       sizeof(enum tsr_sel_kind) == sizeof(int) &&
		       sizeof(enum tsr_entry_kind) == sizeof(int),
	       "a public enum field is no longer int-sized (-fshort-enums?)");
#if UINTPTR_MAX == UINT64_MAX
/* Each options struct's size on LP64 targets, as published: growing one is a deliberate edit
 * here, with its new fields at the end. */
_Static_assert(sizeof(struct tsr_context_options) == 16, "tsr_context_options changed size");
_Static_assert(sizeof(struct tsr_open_options) == 56, "tsr_open_options changed size");
_Static_assert(sizeof(struct tsr_read_options) == 56, "tsr_read_options changed size");
_Static_assert(sizeof(struct tsr_stream_options) == 16, "tsr_stream_options changed size");
#endif

/*
 * Options structs start with size_t struct_size and only ever grow at the end. A caller built
 * against an older tessera.h passes a shorter struct: the fields it lacks keep their defaults
 * (already in dst). A caller built against a newer header passes a longer one: accepted when
 * every byte this library does not know is zero (the newer fields left at their zero
 * defaults), refused otherwise, since honouring half a request would be worse than saying no.
 */
int tsr_options_load(void *dst, size_t dst_nbytes, const void *src, size_t first_nbytes,
		     const size_t *ends, size_t nends, const char *what)
{
	size_t n;
	if (!src)
		return TSR_OK; /* NULL: every default */
	memcpy(&n, src, sizeof(n));
	if (n < first_nbytes)
		return tsr_error(TSR_E_INVALID_ARG,
				 "%s: struct_size %zu is below the first published size %zu (set it "
				 "to sizeof the struct)", what, n, first_nbytes);
	if (n < dst_nbytes) {
		size_t i = 0, a = sizeof(size_t);
		while (i < nends && n != ends[i] && n != (ends[i] + a - 1) / a * a)
			i++;
		if (i == nends)
			return tsr_error(TSR_E_INVALID_ARG,
					 "%s: struct_size %zu ends inside a field: no struct this "
					 "library published has that size (set it to sizeof the struct)",
					 what, n);
	}
	if (n > dst_nbytes) {
		const unsigned char *tail = (const unsigned char *)src + dst_nbytes;
		for (size_t i = 0; i < n - dst_nbytes; i++)
			if (tail[i])
				return tsr_error(TSR_E_INVALID_ARG,
						 "%s: struct_size %zu sets fields past this library's "
						 "%zu bytes (built against a newer tessera.h)",
						 what, n, dst_nbytes);
		n = dst_nbytes;
	}
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t), n - sizeof(size_t));
	return TSR_OK;
}

/* Where field f of struct s ends: the sizes an older struct may have had (tsr_options_load). */
#define TSR_END(s, f) (offsetof(struct s, f) + sizeof(((struct s *)0)->f))

int tsr_context_options_load(struct tsr_context_options *o,
			     const struct tsr_context_options *opts, const char *what)
{
	static const size_t ends[] = {TSR_END(tsr_context_options, nthreads)};
	*o = (struct tsr_context_options){.struct_size = sizeof(*o)};
	return tsr_options_load(o, sizeof(*o), opts, TSR_CONTEXT_OPTIONS_V1, ends, 1, what);
}

int tsr_open_options_load(struct tsr_open_options *o, const struct tsr_open_options *opts,
			  const char *what)
{
	static const size_t ends[] = {
		TSR_END(tsr_open_options, raw),	     TSR_END(tsr_open_options, array),
		TSR_END(tsr_open_options, level),    TSR_END(tsr_open_options, hdu_name),
		TSR_END(tsr_open_options, hdu_ver), TSR_END(tsr_open_options, dtype)};
	*o = (struct tsr_open_options){.struct_size = sizeof(*o), .hdu = -1, .level = -1};
	int st = tsr_options_load(o, sizeof(*o), opts, TSR_OPEN_OPTIONS_V1, ends,
				  sizeof(ends) / sizeof(*ends), what);
	/* -1 is each one's "none"; below it is no HDU or level (they opened as -1) */
	if (!st && (o->hdu < -1 || o->level < -1))
		st = tsr_error(TSR_E_INVALID_ARG, "%s: %s %d is below -1 (-1: %s)", what,
			       o->hdu < -1 ? "hdu" : "level", o->hdu < -1 ? o->hdu : o->level,
			       o->hdu < -1 ? "the first HDU with image data" : "the first level");
	return st;
}

int tsr_read_options_load(struct tsr_read_options *o, const struct tsr_read_options *opts)
{
	static const size_t ends[] = {
		TSR_END(tsr_read_options, nthreads), TSR_END(tsr_read_options, decoder),
		TSR_END(tsr_read_options, storage),  TSR_END(tsr_read_options, devices),
		TSR_END(tsr_read_options, ndevices), TSR_END(tsr_read_options, stop),
		TSR_END(tsr_read_options, stop_arg)};
	memset(o, 0, sizeof(*o)); /* (padding too: the struct is copied whole into shares) */
	o->struct_size = sizeof(*o);
	o->decoder = TSR_DECODER_AUTO;
	o->storage = TSR_STORAGE_REAL;
	int st = tsr_options_load(o, sizeof(*o), opts, TSR_READ_OPTIONS_V1, ends,
				  sizeof(ends) / sizeof(*ends), "read options");
	if (!st && o->nthreads < 0) /* (as tsr_context_create and tsr_stream_open refuse it) */
		st = tsr_error(TSR_E_INVALID_ARG, "read options: nthreads %d is negative",
			       o->nthreads);
	return st;
}

int tsr_stream_options_load(struct tsr_stream_options *o,
			    const struct tsr_stream_options *opts, const char *what)
{
	static const size_t ends[] = {TSR_END(tsr_stream_options, prefetch)};
	*o = (struct tsr_stream_options){.struct_size = sizeof(*o)};
	return tsr_options_load(o, sizeof(*o), opts, TSR_STREAM_OPTIONS_V1, ends, 1, what);
}
