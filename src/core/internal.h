/* internal.h - definitions shared inside libtessera: errors, dtypes, context, arrays. */
#ifndef TSR_INTERNAL_H
#define TSR_INTERNAL_H

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

/* ---- dtypes (core/dtype.c) ---- */
int tsr_dtype_is_float(enum tsr_dtype t);
int tsr_dtype_is_signed(enum tsr_dtype t);

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

struct tsr_context {
	int nthreads;
	struct tsr_pool *pool;
	void *cuda; /* the CUDA engine's state, created on first GPU read */
	void *cpu_cache; /* the CPU engine's idle worker states (engine/cpu.c) */
};

#endif /* TSR_INTERNAL_H */
