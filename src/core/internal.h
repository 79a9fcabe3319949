/* internal.h - definitions shared inside libtessera: errors, dtypes, context, arrays. */
#ifndef TSR_INTERNAL_H
#define TSR_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera.h"

#if defined(__GNUC__)
#define TSR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TSR_HIDDEN __attribute__((visibility("hidden")))
#else
#define TSR_PRINTF(a, b)
#define TSR_HIDDEN
#endif

/* ---- errors (core/status.c) ---- */

/* Sets this thread's message and returns status, so callers write
 * `return tsr_error(TSR_E_CORRUPT, "RICE_1: block %d runs past the end", b);` */
int tsr_error(int status, const char *fmt, ...) TSR_PRINTF(2, 3);
/* Puts "prefix: " in front of this thread's current message (adds context on the way up). */
void tsr_error_prefix(const char *fmt, ...) TSR_PRINTF(1, 2);
/* Replaces this thread's message with msg (to carry a worker's message to the caller). */
void tsr_error_set_text(const char *msg);
/* Clears this thread's message. */
void tsr_error_clear(void);
/* Copies the n bytes of src into dst[cap] as one line of printable text: printable ASCII and
 * valid UTF-8 stay as they are; control characters (C0, DEL, C1) and bytes that are not valid
 * UTF-8 become \xNN. Truncates at a character boundary; returns the length written. Messages
 * quote bytes from files (keys, names, values), so tsr_error and tsr_error_prefix pass what they
 * format through it: no message carries a raw control or invalid byte. */
size_t tsr_escape(char *dst, size_t cap, const char *src, size_t n);
/* Writes v's decimal digits (a '-' first where negative) and a NUL into buf, which holds 21
 * bytes at least; returns their length. snprintf's format parse was most of the time of paths
 * and numbers made a chunk or a number at a time: a sharded Zarr store's chunk keys (a fifth of
 * plan_bench's planning), a .zattrs of 4 million integers printed. */
size_t tsr_int_text(char *buf, long long v);
/* Length of the valid multi-byte UTF-8 character at s[0, n) (no overlong form, surrogate or
 * code point past U+10FFFF), else 0 (ASCII bytes too: callers take those themselves). */
size_t tsr_utf8_len(const unsigned char *s, size_t n);

/* ---- dtypes (core/dtype.c) ---- */
int tsr_dtype_is_float(enum tsr_dtype t);
/* The alignment a destination of t needs: its size, a complex one's part's, 1 for raw bytes
 * (the decoders store numbers through typed pointers; raw items are copied). */
size_t tsr_dtype_align(enum tsr_dtype t);
int tsr_dtype_is_signed(enum tsr_dtype t);
/* A raw dtype (TSR_DTYPE_RAW + itemsize): bytes, unicode, structured. */
int tsr_dtype_is_raw(enum tsr_dtype t);
/* IEEE half precision: from a double rounding to nearest even (as NumPy casts), and back. */
uint16_t tsr_half_from_double(double v);
double tsr_half_to_double(uint16_t h);
/* Parses a NumPy dtype string ("<f4", "f4", "float32", "|b1", "?"): *order_ret gets its byte
 * order character ('<', '>', '|', '=') or 0 when it names none. TSR_E_INVALID_ARG otherwise. */
int tsr_dtype_parse(const char *s, enum tsr_dtype *dtype_ret, char *order_ret);

/* ---- byte order helpers ---- */
static inline uint16_t tsr_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t tsr_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t tsr_be64(const uint8_t *p)
{
	return ((uint64_t)tsr_be32(p) << 32) | tsr_be32(p + 4);
}
static inline uint32_t tsr_le32(const uint8_t *p)
{
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

/* ---- large buffers (core/big_alloc.c) ---- */
/* A buffer of n bytes for free(); large ones on transparent huge pages. */
void *tsr_alloc_big(size_t n);
struct tsr_pool;
/* Faults in the pages of p, a fresh large buffer of n bytes from tsr_alloc_big, over nthreads of
 * the pool's threads, each 2 MiB page by one thread (nothing for small buffers or one thread). */
void tsr_big_populate(void *p, size_t n, struct tsr_pool *pool, int nthreads);

/* ---- growing arrays (core/grow.c) ---- */
/* Makes *buf (of *cap elements of elem_nbytes) hold at least need, doubling from first (or the
 * present capacity); TSR_E_NOMEM with the buffer left as it was. */
int tsr_grow(void **buf, size_t *cap, size_t need, size_t elem_nbytes, size_t first);

/* ---- time ---- */
double tsr_now(void); /* monotonic seconds */

/* ---- thread pool (core/pool.c) ---- */
struct tsr_pool;
typedef void (*tsr_pool_fn)(void *arg, int worker);
int tsr_pool_create(int nthreads, struct tsr_pool **pool_ret);
void tsr_pool_free(struct tsr_pool *pool);
/* Runs fn(arg, w) for w in [0, nworkers) at once, the caller being worker 0; returns when all
 * have returned. nworkers is capped at the pool's size. Serialised between callers. */
void tsr_pool_run(struct tsr_pool *pool, int nworkers, tsr_pool_fn fn, void *arg);
/* The same in the background: fn(arg, w) for w in [1, nworkers) on the pool's threads (none when
 * nworkers <= 1), the caller free to go on. The pool stays taken until tsr_pool_wait, which any
 * thread may call once; until then other jobs wait. */
void tsr_pool_start(struct tsr_pool *pool, int nworkers, tsr_pool_fn fn, void *arg);
void tsr_pool_wait(struct tsr_pool *pool);

/* What an engine or a driver keeps on a context between calls (the CPU engine's idle worker
 * states, the CUDA engine's staging ring, the FITS driver's HDU offsets): made by its owner on
 * first use, freed with the context through the owner's own function, so the core needs to
 * know neither engines nor drivers. */
enum tsr_ctx_state_id { TSR_CTX_CPU = 0, TSR_CTX_CUDA, TSR_CTX_FITS, TSR_CTX_NSTATES };
typedef int (*tsr_state_make_fn)(struct tsr_context *ctx, void **state_ret);
typedef void (*tsr_state_free_fn)(void *state);
/* The context's state `id`, made by make (once, under the context's lock; a failure is
 * returned and the next call tries again); free is how tsr_context_free frees it. */
int tsr_context_state(struct tsr_context *ctx, enum tsr_ctx_state_id id, tsr_state_make_fn make,
		      tsr_state_free_fn free_fn, void **state_ret);
/* The state `id` if made, else NULL. */
void *tsr_context_state_peek(struct tsr_context *ctx, enum tsr_ctx_state_id id);

struct tsr_context {
	int nthreads;
	struct tsr_pool *pool;
	pthread_mutex_t state_lock; /* guards making the states */
	void *state[TSR_CTX_NSTATES];
	tsr_state_free_fn state_free[TSR_CTX_NSTATES];
};

/* options.c: copies a caller's options struct (struct_size first) into dst, which holds the
 * defaults and dst_nbytes = sizeof its struct: sizes from first_nbytes (the first published
 * struct) up; fields a shorter struct lacks keep their defaults; a longer one is accepted when
 * the bytes past dst_nbytes are zero. NULL src: the defaults. TSR_E_INVALID_ARG naming `what`
 * otherwise; so is a shorter size that is not where one of its fields ends (ends[0 .. nends),
 * or that rounded up to a size_t, as sizeof pads a struct): older structs end there, and any
 * other size would copy part of a field (half a pointer). dst's struct_size is left as it is. */
int tsr_options_load(void *dst, size_t dst_nbytes, const void *src, size_t first_nbytes,
		     const size_t *ends, size_t nends, const char *what);

/* Each public options struct through tsr_options_load, with its defaults and its first
 * published size (one table, options.c); `what` names the entry point in messages. Every
 * entry point that takes one of these structs loads it through these, before any other work. */
#define TSR_CONTEXT_OPTIONS_V1 (offsetof(struct tsr_context_options, nthreads) + sizeof(int))
#define TSR_OPEN_OPTIONS_V1 offsetof(struct tsr_open_options, array)
#define TSR_READ_OPTIONS_V1 (offsetof(struct tsr_read_options, nthreads) + sizeof(int))
#define TSR_STREAM_OPTIONS_V1 (offsetof(struct tsr_stream_options, prefetch) + sizeof(int))
int tsr_context_options_load(struct tsr_context_options *dst,
			     const struct tsr_context_options *opts, const char *what);
/* Defaults: hdu -1, level -1, no strings. */
int tsr_open_options_load(struct tsr_open_options *dst, const struct tsr_open_options *opts,
			  const char *what);
/* Defaults: the context's threads, decoder auto, real storage, no devices. */
int tsr_read_options_load(struct tsr_read_options *dst, const struct tsr_read_options *opts);
int tsr_stream_options_load(struct tsr_stream_options *dst,
			    const struct tsr_stream_options *opts, const char *what);

#endif /* TSR_INTERNAL_H */
