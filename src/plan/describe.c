/* describe.c - a plan's settled chunk descriptions: each task's chunk as the read's storage
 * backend serves it (the driver's, or a mock cache's), kept without its path, and each distinct
 * path once; with a route device, each task's route, place values and storage read. */
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../io/storage.h"
#include "plan.h"

/* A description is the chunk_ref after its path: the path is its first field. */
_Static_assert(offsetof(struct tsr_chunk_ref, path) == 0, "tsr_chunk_ref: path comes first");
#define TSR_TAIL_AT sizeof(((struct tsr_chunk_ref *)0)->path)
#define TSR_TAIL_NBYTES (sizeof(struct tsr_chunk_ref) - TSR_TAIL_AT)
/* A describing thread's tasks at least (tsr_plan_describe_on). */
#define TSR_DESCRIBE_PART 512

/* What a tile's description has of its own beyond its stored bytes: a quantized FITS tile's
 * ZSCALE, ZZERO and dither row. */
struct tsr_task_own {
	double scale, zero;
	int64_t dither_row;
};

struct tsr_plan_descs {
	/* The distinct descriptions without path, offset and size (which the task's info holds)
	 * nor the values a tile has of its own (own): the tiles of one image differ only there,
	 * so a run of equal ones is kept once. (With each quantized tile's own description kept,
	 * a RICE_1 float batch of 32 4,096-tile files took 49.7 ms to describe and 5.4 to free on
	 * the H200, against 11.7 and 0.1 for int16 tiles: 7.8 MB of descriptions a file.) */
	unsigned char *tails;   /* ntails * TSR_TAIL_NBYTES */
	size_t ntails, tails_cap;
	struct tsr_task_own *own; /* ntasks */
	uint32_t *tail_id;      /* ntasks */
	uint32_t *path_id;      /* ntasks */
	struct tsr_task_info *info; /* ntasks */
	int64_t *extent;        /* ntasks * ndim */
	int ndim;
	char *pool;             /* the distinct paths, each NUL-terminated */
	size_t pool_len, pool_cap;
	uint64_t *path_at;      /* npaths: offset in pool */
	size_t npaths, paths_cap;
	uint32_t *slots;        /* open addressing: path id + 1, 0 empty; nslots a power of 2 */
	size_t nslots;
};

static uint64_t tsr_path_hash(const char *s) /* FNV-1a */
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int tsr_slots_grow(struct tsr_plan_descs *ds)
{
	size_t n = ds->nslots ? 2 * ds->nslots : 64;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return tsr_error(TSR_E_NOMEM, "plan: out of memory for chunk paths");
	for (size_t i = 0; i < ds->npaths; i++) {
		size_t at = tsr_path_hash(ds->pool + ds->path_at[i]) & (n - 1);
		while (s[at])
			at = (at + 1) & (n - 1);
		s[at] = (uint32_t)i + 1;
	}
	free(ds->slots);
	ds->slots = s;
	ds->nslots = n;
	return TSR_OK;
}

/* The id of path in the pool, added when new. */
static int tsr_path_intern(struct tsr_plan_descs *ds, const char *path, uint32_t *id_ret)
{
	if (2 * (ds->npaths + 1) > ds->nslots && tsr_slots_grow(ds))
		return TSR_E_NOMEM;
	size_t at = tsr_path_hash(path) & (ds->nslots - 1);
	for (; ds->slots[at]; at = (at + 1) & (ds->nslots - 1)) {
		uint32_t id = ds->slots[at] - 1;
		if (!strcmp(ds->pool + ds->path_at[id], path)) {
			*id_ret = id;
			return TSR_OK;
		}
	}
	if (ds->npaths >= UINT32_MAX - 1)
		return tsr_error(TSR_E_NOMEM, "plan: too many chunk paths");
	size_t n = strlen(path) + 1;
	int st = tsr_grow((void **)&ds->pool, &ds->pool_cap, ds->pool_len + n, 1, 4096);
	if (!st)
		st = tsr_grow((void **)&ds->path_at, &ds->paths_cap, ds->npaths + 1,
			      sizeof(*ds->path_at), 64);
	if (st)
		return st;
	memcpy(ds->pool + ds->pool_len, path, n);
	ds->path_at[ds->npaths] = ds->pool_len;
	ds->pool_len += n;
	ds->slots[at] = (uint32_t)ds->npaths + 1;
	*id_ret = (uint32_t)ds->npaths++;
	return TSR_OK;
}

/* Frees what ds holds (a describing thread's own descriptions hold only tails and paths). */
static void tsr_descs_release(struct tsr_plan_descs *ds)
{
	free(ds->tails);
	free(ds->own);
	free(ds->tail_id);
	free(ds->path_id);
	free(ds->info);
	free(ds->extent);
	free(ds->pool);
	free(ds->path_at);
	free(ds->slots);
}

void tsr_plan_descs_free(struct tsr_plan_descs *ds)
{
	if (!ds)
		return;
	tsr_descs_release(ds);
	free(ds);
}

/* A describing thread's share: tasks [t0, t1), whose descriptions it keeps in loc (tails and
 * paths; the ids it writes are loc's until the merge) and whose infos and extents it writes into
 * the shared arrays of out. */
struct tsr_describe_part {
	struct tsr_plan_descs *out, *loc;
	int64_t t0, t1;
	int st;
	char msg[1024];         /* its failure's message (messages are per thread) */
};

struct tsr_describe_job {
	const struct tsr_plan *p;
	const struct tsr_array *a;
	const struct tsr_backend *be;
	int settle;
	const struct tsr_route_device *dev;
	struct tsr_describe_part *parts;
};

/* A task's route, route values and stream check (its info's, zeroed before). */
static void tsr_describe_route(const struct tsr_route_device *dev, const struct tsr_chunk_ref *ref,
			       struct tsr_task_info *ti)
{
	tsr_route_chunk(ref, dev, &ti->route);
	tsr_route_values(ref, &ti->route, &ti->values);
	if (ti->route.how == TSR_ROUTE_STREAM)
		tsr_route_stream_check(ref, &ti->route, &ti->check);
}

/*
 * Task t, whose chunk follows task t - 1's and which the backend's chunk_next described from
 * it in ref (offset, nbytes and its own values apart, the same description): task t - 1's
 * description, path, extent and info, its route too where the size allows the same one
 * (tsr_route_size_class, *size_class task t - 1's and then t's), its own values and bytes.
 */
static void tsr_describe_next(const struct tsr_describe_job *job, struct tsr_plan_descs *ds,
			      int64_t t, const struct tsr_chunk_ref *ref, int *size_class)
{
	size_t nd = (size_t)ds->ndim;
	memcpy(ds->extent + (size_t)t * nd, ds->extent + (size_t)(t - 1) * nd, nd * sizeof(int64_t));
	struct tsr_task_info *ti = &ds->info[t];
	*ti = ds->info[t - 1];
	ti->offset = ref->offset;
	ti->nbytes = ref->nbytes;
	if (job->dev) {
		int size = (int)tsr_route_size_class(ref);
		if (size != *size_class) {
			/* (the route and its values are written whole; the check only for a stream) */
			memset(&ti->check, 0, sizeof(ti->check));
			tsr_describe_route(job->dev, ref, ti);
			*size_class = size;
		} else {
			tsr_route_values(ref, &ti->route, &ti->values);
		}
	}
	ds->own[t] = (struct tsr_task_own){ref->xform.scale, ref->xform.zero,
					   ref->xform.dither_row};
	ds->path_id[t] = ds->path_id[t - 1];
	ds->tail_id[t] = ds->tail_id[t - 1];
}

static int tsr_describe_range(const struct tsr_describe_job *job, struct tsr_describe_part *pt)
{
	const struct tsr_plan *p = job->p;
	const struct tsr_array *a = job->a;
	struct tsr_plan_descs *ds = pt->out, *loc = pt->loc;
	size_t nd = (size_t)ds->ndim;
	struct tsr_chunk_ref ref;
	uint32_t last_id = UINT32_MAX;
	/* the chunk of the task before, which ref describes (-2: none), and its route's size class */
	int64_t last_chunk = -2;
	int size_class = -1;
	int st = TSR_OK;
	for (int64_t t = pt->t0; t < pt->t1 && !st; t++) {
		int64_t chunk = tsr_task_chunk(p, t);
		if (chunk == last_chunk + 1 && job->be->chunk_next &&
		    job->be->chunk_next(a, chunk, job->settle, &ref)) {
			tsr_describe_next(job, ds, t, &ref, &size_class);
			last_chunk = chunk;
			continue;
		}
		last_chunk = -2;
		st = job->be->chunk_ref(a, chunk, job->settle, &ref);
		if (!st) {
			/* (a FITS file's tiles, a shard's chunks: the path of the task before) */
			if (last_id != UINT32_MAX && !strcmp(loc->pool + loc->path_at[last_id], ref.path))
				ds->path_id[t] = last_id;
			else
				st = tsr_path_intern(loc, ref.path, &ds->path_id[t]);
			last_id = ds->path_id[t];
		}
		if (st) {
			char prefix[1400], label[320];
			tsr_array_chunk_name(a, chunk, prefix, sizeof(prefix), label, sizeof(label));
			tsr_error_prefix("%s %s", prefix, label);
			break;
		}
		memcpy(ds->extent + (size_t)t * nd, ref.extent, nd * sizeof(int64_t));
		struct tsr_task_info *ti = &ds->info[t];
		memset(ti, 0, sizeof(*ti));
		ti->offset = ref.offset;
		ti->nbytes = ref.nbytes;
		ti->npix = ref.npix;
		ti->dec_npix = tsr_route_decoded_npix(&ref);
		ti->codec_name = ref.codec_name;
		ti->elem_nbytes = (uint32_t)tsr_dtype_size(ref.codec.elem);
		ti->out_nbytes = (uint32_t)tsr_dtype_size(ref.xform.out);
		if (job->dev) {
			tsr_describe_route(job->dev, &ref, ti);
			size_class = (int)tsr_route_size_class(&ref);
		}
		/* the description kept once a run of equal ones (offset and size: the info's; a
		 * tile's own values: own's) */
		ref.offset = ref.nbytes = 0;
		ds->own[t] = (struct tsr_task_own){ref.xform.scale, ref.xform.zero,
						   ref.xform.dither_row};
		ref.xform.scale = ref.xform.zero = 0;
		ref.xform.dither_row = 0;
		const unsigned char *tail = (const unsigned char *)&ref + TSR_TAIL_AT;
		if (!loc->ntails ||
		    memcmp(loc->tails + (loc->ntails - 1) * TSR_TAIL_NBYTES, tail, TSR_TAIL_NBYTES)) {
			if (loc->ntails >= UINT32_MAX ||
			    tsr_grow((void **)&loc->tails, &loc->tails_cap, loc->ntails + 1,
				     TSR_TAIL_NBYTES, 16)) {
				st = tsr_error(TSR_E_NOMEM, "%s: out of memory for %lld chunk "
					       "descriptions", a->path, (long long)p->ntasks);
				break;
			}
			memcpy(loc->tails + loc->ntails++ * TSR_TAIL_NBYTES, tail, TSR_TAIL_NBYTES);
		}
		ds->tail_id[t] = (uint32_t)(loc->ntails - 1);
		last_chunk = chunk;
	}
	return st;
}

static void tsr_describe_worker(void *arg, int w)
{
	const struct tsr_describe_job *job = arg;
	struct tsr_describe_part *pt = &job->parts[w];
	pt->st = tsr_describe_range(job, pt);
	if (pt->st)
		snprintf(pt->msg, sizeof(pt->msg), "%s", tsr_errmsg());
}

/* Moves a part's descriptions and paths into ds, its tasks' ids with them. */
static int tsr_describe_merge(struct tsr_plan_descs *ds, const struct tsr_describe_part *pt)
{
	const struct tsr_plan_descs *loc = pt->loc;
	size_t base = ds->ntails;
	if (ds->ntails + loc->ntails >= UINT32_MAX ||
	    tsr_grow((void **)&ds->tails, &ds->tails_cap, ds->ntails + loc->ntails, TSR_TAIL_NBYTES,
		     16))
		return tsr_error(TSR_E_NOMEM, "plan: out of memory for chunk descriptions");
	memcpy(ds->tails + base * TSR_TAIL_NBYTES, loc->tails, loc->ntails * TSR_TAIL_NBYTES);
	ds->ntails += loc->ntails;
	uint32_t *map = malloc((loc->npaths ? loc->npaths : 1) * sizeof(*map));
	if (!map)
		return tsr_error(TSR_E_NOMEM, "plan: out of memory for chunk paths");
	int st = TSR_OK;
	for (size_t i = 0; i < loc->npaths && !st; i++)
		st = tsr_path_intern(ds, loc->pool + loc->path_at[i], &map[i]);
	for (int64_t t = pt->t0; t < pt->t1 && !st; t++) {
		ds->tail_id[t] += (uint32_t)base;
		ds->path_id[t] = map[ds->path_id[t]];
	}
	free(map);
	return st;
}

int tsr_plan_describe(const struct tsr_plan *p, const struct tsr_array *a,
		      const struct tsr_backend *be, int settle, const struct tsr_route_device *dev,
		      struct tsr_plan_descs **descs_ret)
{
	return tsr_plan_describe_on(p, a, be, settle, dev, NULL, 1, descs_ret);
}

int tsr_plan_describe_on(const struct tsr_plan *p, const struct tsr_array *a,
			 const struct tsr_backend *be, int settle,
			 const struct tsr_route_device *dev, struct tsr_pool *pool, int nthreads,
			 struct tsr_plan_descs **descs_ret)
{
	*descs_ret = NULL;
	struct tsr_plan_descs *ds = calloc(1, sizeof(*ds));
	size_t n = (size_t)p->ntasks, nd = (size_t)(p->ndim > 0 ? p->ndim : 0);
	if (!ds || !(ds->tail_id = malloc(n * sizeof(uint32_t) + 1)) ||
	    !(ds->own = malloc(n * sizeof(*ds->own) + 1)) ||
	    !(ds->path_id = malloc(n * sizeof(uint32_t) + 1)) ||
	    !(ds->info = malloc(n * sizeof(*ds->info) + 1)) ||
	    !(ds->extent = malloc(n * nd * sizeof(int64_t) + 1))) {
		tsr_plan_descs_free(ds);
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for %zu chunk descriptions", a->path,
				 n);
	}
	ds->ndim = (int)nd;
	/* Parts of at least TSR_DESCRIBE_PART tasks, one a thread: describing is a few hundred
	 * nanoseconds a task, most of it the driver's and the route's, all of it independent
	 * between tasks (the CPU engine's threads already ask drivers for chunks at once). */
	int nparts = pool && nthreads > 1 ? (int)(n / TSR_DESCRIBE_PART) : 1;
	nparts = nparts < 1 ? 1 : nparts > nthreads ? nthreads : nparts;
	struct tsr_describe_part one, *parts = nparts > 1 ? calloc((size_t)nparts, sizeof(*parts))
							 : &one;
	struct tsr_plan_descs *locs = nparts > 1 ? calloc((size_t)nparts - 1, sizeof(*locs)) : NULL;
	if (!parts || (nparts > 1 && !locs)) {
		if (parts != &one)
			free(parts);
		tsr_plan_descs_free(ds);
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for %zu chunk descriptions", a->path,
				 n);
	}
	for (int k = 0; k < nparts; k++) {
		/* part 0 keeps its descriptions in ds itself, the others their own until merged */
		parts[k] = (struct tsr_describe_part){
			.out = ds, .loc = k ? &locs[k - 1] : ds,
			.t0 = (int64_t)(n * (size_t)k / (size_t)nparts),
			.t1 = (int64_t)(n * (size_t)(k + 1) / (size_t)nparts)};
	}
	struct tsr_describe_job job = {p, a, be, settle, dev, parts};
	if (nparts > 1)
		tsr_pool_run(pool, nparts, tsr_describe_worker, &job);
	else
		parts[0].st = tsr_describe_range(&job, &parts[0]);
	/* the first failing part holds the first failing task: its error, as one thread says it */
	int st = TSR_OK;
	for (int k = 0; k < nparts && !st; k++) {
		st = parts[k].st;
		if (st && nparts > 1)
			tsr_error_set_text(parts[k].msg);
	}
	for (int k = 1; k < nparts && !st; k++)
		st = tsr_describe_merge(ds, &parts[k]);
	for (int k = 0; k + 1 < nparts; k++)
		tsr_descs_release(&locs[k]);
	free(locs);
	if (parts != &one)
		free(parts);
	if (st) {
		tsr_plan_descs_free(ds);
		return st;
	}
	/* (the pool holds every path now: pointers into it stay) */
	for (size_t t = 0; t < n; t++)
		ds->info[t].path = ds->pool + ds->path_at[ds->path_id[t]];
	*descs_ret = ds;
	return TSR_OK;
}

const struct tsr_task_info *tsr_task_info(const struct tsr_plan_descs *ds, int64_t t)
{
	return &ds->info[t];
}

const int64_t *tsr_task_extent(const struct tsr_plan_descs *ds, int64_t t)
{
	return ds->extent + (size_t)t * (size_t)ds->ndim;
}

void tsr_task_desc(const struct tsr_plan_descs *ds, int64_t t, struct tsr_chunk_ref *ref)
{
	memcpy((char *)ref + TSR_TAIL_AT, ds->tails + (size_t)ds->tail_id[t] * TSR_TAIL_NBYTES,
	       TSR_TAIL_NBYTES);
	ref->offset = ds->info[t].offset;
	ref->nbytes = ds->info[t].nbytes;
	ref->xform.scale = ds->own[t].scale;
	ref->xform.zero = ds->own[t].zero;
	ref->xform.dither_row = ds->own[t].dither_row;
	strcpy(ref->path, ds->pool + ds->path_at[ds->path_id[t]]);
}

uint32_t tsr_task_desc_id(const struct tsr_plan_descs *ds, int64_t t)
{
	return ds->tail_id[t];
}

const char *tsr_task_desc_path(const struct tsr_plan_descs *ds, int64_t t)
{
	return ds->pool + ds->path_at[ds->path_id[t]];
}

size_t tsr_plan_descs_npaths(const struct tsr_plan_descs *ds)
{
	return ds ? ds->npaths : 0;
}
