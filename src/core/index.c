/* index.c - advanced selections (tsr_index): integer arrays and boolean masks beside the basic
 * items, built or parsed, and normalised against a shape into point groups.
 *
 * Normalising turns every key into basic axes (start/step/count, as tsr_selection_normalize
 * makes them) plus groups of points: NumPy's vectorised key gives one group over all the axes
 * its arrays, masks and integers index (the points are the broadcast shape's elements, in C
 * order); an orthogonal key gives one group per array or mask, each over its own axis. The
 * planner then sorts each group's points by chunk, so that a chunk's points are one run and
 * every chunk is read once; the output position of a point is its broadcast index times the
 * group's stride, so nothing is gathered afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selection.h"

struct tsr_index_item {
	enum tsr_sel_kind kind;
	struct tsr_sel_item basic;  /* INDEX, SLICE, ELLIPSIS, NEWAXIS */
	int ndim;                   /* ARRAY, MASK */
	int64_t shape[TSR_MAX_DIM];
	int64_t n;                  /* elements */
	int64_t *values;            /* ARRAY */
	unsigned char *mask;        /* MASK */
};

struct tsr_index {
	enum tsr_index_mode mode;
	int nitems;
	struct tsr_index_item items[2 * TSR_MAX_DIM];
};

int tsr_index_create(int mode, struct tsr_index **index_ret)
{
	if (!index_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_create: index_ret is NULL");
	*index_ret = NULL;
	if (mode != TSR_INDEX_NUMPY && mode != TSR_INDEX_ORTHOGONAL)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_create: mode %d is neither "
				 "TSR_INDEX_NUMPY (0) nor TSR_INDEX_ORTHOGONAL (1)", mode);
	struct tsr_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return tsr_error(TSR_E_NOMEM, "tsr_index_create: out of memory");
	ix->mode = mode;
	*index_ret = ix;
	return TSR_OK;
}

void tsr_index_free(struct tsr_index *ix)
{
	if (!ix)
		return;
	for (int i = 0; i < ix->nitems; i++) {
		free(ix->items[i].values);
		free(ix->items[i].mask);
	}
	free(ix);
}

static struct tsr_index_item *tsr_index_next(struct tsr_index *ix)
{
	if (!ix) {
		tsr_error(TSR_E_INVALID_ARG, "tsr_index: NULL index");
		return NULL;
	}
	if (ix->nitems == 2 * TSR_MAX_DIM) {
		tsr_error(TSR_E_SELECTION, "an index has at most %d items", 2 * TSR_MAX_DIM);
		return NULL;
	}
	struct tsr_index_item *it = &ix->items[ix->nitems];
	memset(it, 0, sizeof(*it));
	return it;
}

int tsr_index_add_item(struct tsr_index *ix, const struct tsr_sel_item *item)
{
	struct tsr_index_item *it = tsr_index_next(ix);
	if (!it)
		return ix ? TSR_E_SELECTION : TSR_E_INVALID_ARG;
	if (!item)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_add_item: NULL item");
	if (item->kind < TSR_SEL_INDEX || item->kind > TSR_SEL_NEWAXIS)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_add_item: not a basic item (kind %d)",
				 (int)item->kind);
	it->kind = item->kind;
	it->basic = *item;
	ix->nitems++;
	return TSR_OK;
}

/* Checks an array's dims and counts its elements. */
static int tsr_index_dims(struct tsr_index_item *it, int ndim, const int64_t *shape, int min_ndim,
			  const char *what)
{
	if (ndim > 0 && !shape)
		return tsr_error(TSR_E_INVALID_ARG, "%s: NULL shape for %d dims", what, ndim);
	if (ndim < min_ndim || ndim > TSR_MAX_DIM)
		return tsr_error(TSR_E_INVALID_ARG, "%s: %d dims (%d to %d)", what, ndim, min_ndim,
				 TSR_MAX_DIM);
	int64_t n = 1;
	for (int d = 0; d < ndim; d++) {
		if (shape[d] < 0)
			return tsr_error(TSR_E_INVALID_ARG, "%s: dim %d of size %lld", what, d,
					 (long long)shape[d]);
		if (shape[d] && n > INT64_MAX / 16 / shape[d])
			return tsr_error(TSR_E_INVALID_ARG, "%s: too many elements", what);
		n *= shape[d];
		it->shape[d] = shape[d];
	}
	it->ndim = ndim;
	it->n = n;
	return TSR_OK;
}

int tsr_index_add_array(struct tsr_index *ix, int ndim, const int64_t *shape, const int64_t *values)
{
	struct tsr_index_item *it = tsr_index_next(ix);
	int st;
	if (!it)
		return ix ? TSR_E_SELECTION : TSR_E_INVALID_ARG;
	if ((st = tsr_index_dims(it, ndim, shape, 0, "tsr_index_add_array")))
		return st;
	if (it->n && !values)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_add_array: NULL values");
	it->values = malloc((size_t)it->n * sizeof(int64_t) + 1);
	if (!it->values)
		return tsr_error(TSR_E_NOMEM, "tsr_index_add_array: out of memory");
	if (it->n)
		memcpy(it->values, values, (size_t)it->n * sizeof(int64_t));
	it->kind = TSR_SEL_ARRAY;
	ix->nitems++;
	return TSR_OK;
}

int tsr_index_add_mask(struct tsr_index *ix, int ndim, const int64_t *shape,
		       const unsigned char *mask)
{
	struct tsr_index_item *it = tsr_index_next(ix);
	int st;
	if (!it)
		return ix ? TSR_E_SELECTION : TSR_E_INVALID_ARG;
	if ((st = tsr_index_dims(it, ndim, shape, 1, "tsr_index_add_mask")))
		return st;
	if (it->n && !mask)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_add_mask: NULL mask");
	it->mask = malloc((size_t)it->n + 1);
	if (!it->mask)
		return tsr_error(TSR_E_NOMEM, "tsr_index_add_mask: out of memory");
	if (it->n)
		memcpy(it->mask, mask, (size_t)it->n);
	it->kind = TSR_SEL_MASK;
	ix->nitems++;
	return TSR_OK;
}

/* ---- parsing ---- */

/* A nested list of integers or booleans: its shape comes from how deep and how long the
 * lists are, and must be rectangular, as NumPy makes an array of it. */
struct tsr_list_parser {
	const char *spec, *p;
	int ndim;                      /* dims seen so far (the deepest list + 1) */
	int64_t shape[TSR_MAX_DIM];
	unsigned char shape_set[TSR_MAX_DIM];
	int leaf_depth;                /* the depth holding leaves; -1 until one is seen */
	int kind;                      /* 0 none yet, 1 integers, 2 booleans */
	int64_t *vals;
	size_t n, cap;
};

static int lp_fail(const struct tsr_list_parser *L, const char *what)
{
	return tsr_error(TSR_E_SELECTION, "selection \"%.200s\": column %lld: %s", L->spec,
			 (long long)(L->p - L->spec) + 1, what);
}

static void lp_space(struct tsr_list_parser *L)
{
	while (*L->p == ' ' || *L->p == '\t' || *L->p == '\n' || *L->p == '\r')
		L->p++;
}

static int lp_word(const char *p, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(p, w, n) != 0)
		return 0; /* (p may end before n characters: look past them only on a match) */
	char c = p[n];
	return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
}

static int lp_leaf(struct tsr_list_parser *L, int depth)
{
	int64_t v;
	int kind;
	if (lp_word(L->p, "True") || lp_word(L->p, "False")) {
		kind = 2;
		v = *L->p == 'T';
		L->p += v ? 4 : 5;
	} else {
		int neg = 0;
		uint64_t mag = 0;
		if (*L->p == '+' || *L->p == '-')
			neg = *L->p++ == '-';
		if (*L->p < '0' || *L->p > '9')
			return lp_fail(L, "expected an integer, True or False");
		uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		while (*L->p >= '0' && *L->p <= '9') {
			unsigned dgt = (unsigned)(*L->p++ - '0');
			if (mag > (limit - dgt) / 10)
				return lp_fail(L, "integer does not fit in 64 bits");
			mag = mag * 10 + dgt;
		}
		v = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
		kind = 1;
	}
	if (L->kind && L->kind != kind)
		return lp_fail(L, "a list mixes integers and booleans");
	L->kind = kind;
	if (L->leaf_depth >= 0 && L->leaf_depth != depth)
		return lp_fail(L, "the lists are not rectangular (an array needs equal lengths)");
	L->leaf_depth = depth;
	if (L->n == L->cap) {
		int st = tsr_grow((void **)&L->vals, &L->cap, L->n + 1, sizeof(int64_t), 64);
		if (st)
			return st;
	}
	L->vals[L->n++] = v;
	return TSR_OK;
}

/* One list at depth (its elements make dim `depth`). */
static int lp_list(struct tsr_list_parser *L, int depth)
{
	if (depth >= TSR_MAX_DIM)
		return lp_fail(L, "lists nested too deep");
	if (depth + 1 > L->ndim)
		L->ndim = depth + 1;
	L->p++; /* '[' */
	int64_t count = 0;
	int st;
	lp_space(L);
	while (*L->p != ']') {
		if (*L->p == '[') {
			if (L->leaf_depth >= 0 && L->leaf_depth <= depth)
				return lp_fail(L, "the lists are not rectangular (an array needs equal "
					       "lengths)");
			st = lp_list(L, depth + 1);
		} else {
			st = lp_leaf(L, depth);
		}
		if (st)
			return st;
		count++;
		lp_space(L);
		if (*L->p == ',') {
			L->p++;
			lp_space(L);
		} else if (*L->p != ']') {
			return lp_fail(L, "expected ',' or ']' in a list");
		}
	}
	L->p++;
	if (L->shape_set[depth] && L->shape[depth] != count)
		return lp_fail(L, "the lists are not rectangular (an array needs equal lengths)");
	L->shape[depth] = count;
	L->shape_set[depth] = 1;
	return TSR_OK;
}

static int tsr_index_parse_list(struct tsr_index *ix, const char *spec, const char **pp)
{
	struct tsr_list_parser L;
	memset(&L, 0, sizeof(L));
	L.spec = spec;
	L.p = *pp;
	L.leaf_depth = -1;
	int st = lp_list(&L, 0);
	if (st == TSR_OK) {
		/* an empty list nested deeper than the leaves' depth cannot happen (checked); one
		 * with no leaves at all is an empty integer array, as NumPy takes [] */
		if (L.leaf_depth >= 0 && L.ndim != L.leaf_depth + 1)
			st = lp_fail(&L, "the lists are not rectangular (an array needs equal lengths)");
	}
	if (st == TSR_OK && L.kind == 2) {
		unsigned char *m = malloc(L.n + 1);
		if (!m) {
			st = tsr_error(TSR_E_NOMEM, "out of memory");
		} else {
			for (size_t i = 0; i < L.n; i++)
				m[i] = (unsigned char)L.vals[i];
			st = tsr_index_add_mask(ix, L.ndim, L.shape, m);
			free(m);
		}
	} else if (st == TSR_OK) {
		st = tsr_index_add_array(ix, L.ndim, L.shape, L.vals);
	}
	free(L.vals);
	*pp = L.p;
	return st;
}

int tsr_index_parse(const char *spec, int mode, struct tsr_index **index_ret)
{
	if (index_ret)
		*index_ret = NULL; /* (as every call that makes an object sets it on failure) */
	if (!spec || !index_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_parse: NULL argument");
	struct tsr_index *ix;
	int st = tsr_index_create(mode, &ix);
	if (st)
		return st;
	const char *p = spec;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	while (*p) {
		if (*p == '[') {
			st = tsr_index_parse_list(ix, spec, &p);
		} else {
			/* a basic item runs to the next comma: tsr_selection_parse reads it */
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			char item[256];
			struct tsr_selection one;
			if (len >= sizeof(item)) {
				st = tsr_error(TSR_E_SELECTION, "selection \"%.200s\": column %lld: item "
					       "too long", spec, (long long)(p - spec) + 1);
			} else {
				memcpy(item, p, len);
				item[len] = '\0';
				st = tsr_selection_parse(item, &one);
				if (st == TSR_OK && one.nitems != 1)
					st = tsr_error(TSR_E_SELECTION, "selection \"%.200s\": column %lld: "
						       "empty item", spec, (long long)(p - spec) + 1);
				else if (st)
					tsr_error_prefix("selection \"%.200s\": item at column %lld", spec,
							 (long long)(p - spec) + 1);
				if (st == TSR_OK)
					st = tsr_index_add_item(ix, &one.items[0]);
			}
			p += len;
		}
		if (st)
			break;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '\0')
			break;
		if (*p != ',') {
			st = tsr_error(TSR_E_SELECTION, "selection \"%.200s\": column %lld: expected ',' "
				       "or the end after an item", spec, (long long)(p - spec) + 1);
			break;
		}
		p++;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
	}
	if (st) {
		tsr_index_free(ix);
		return st;
	}
	*index_ret = ix;
	return TSR_OK;
}

/* ---- normalisation ---- */

void tsr_norm_sel_free(struct tsr_norm_sel *sel)
{
	if (!sel || !sel->groups)
		return;
	for (int g = 0; g < sel->ngroups; g++)
		free(sel->groups[g].coords);
	free(sel->groups);
	sel->groups = NULL;
	sel->ngroups = 0;
}

/* One index array as the broadcast sees it: values over shape, and the axis it indexes. */
struct tsr_bcast_arr {
	int ndim;
	const int64_t *shape;
	const int64_t *vals;
	int axis;
};

static int tsr_bounds(int64_t *v, int64_t n, int axis)
{
	int64_t j = *v < 0 ? *v + n : *v; /* cannot overflow: v < 0 <= n */
	if (j < 0 || j >= n)
		return tsr_error(TSR_E_RANGE, "index %lld is out of bounds for axis %d with size %lld",
				 (long long)*v, axis, (long long)n);
	*v = j;
	return TSR_OK;
}

/* The positions of a mask's nonzero elements: k arrays of nnz coordinates (*coords_ret,
 * coordinate j of element e at [j * nnz + e]), after checking its shape against the axes. */
static int tsr_mask_points(const struct tsr_index_item *it, int axis, const int64_t *shape,
			   int64_t **coords_ret, int64_t *nnz_ret)
{
	int k = it->ndim;
	/* (a mask axis of length 0 matches any axis, as NumPy's check passes it over: such a
	 * mask selects nothing) */
	for (int j = 0; j < k; j++)
		if (it->shape[j] != 0 && it->shape[j] != shape[axis + j])
			return tsr_error(TSR_E_SELECTION, "boolean index did not match indexed array "
					 "along axis %d; size of axis is %lld but size of corresponding "
					 "boolean axis is %lld", axis + j, (long long)shape[axis + j],
					 (long long)it->shape[j]);
	int64_t nnz = 0;
	for (int64_t e = 0; e < it->n; e++)
		nnz += it->mask[e] != 0;
	int64_t *c = malloc((size_t)nnz * (size_t)k * sizeof(int64_t) + 1);
	if (!c)
		return tsr_error(TSR_E_NOMEM, "out of memory for a mask's %lld points", (long long)nnz);
	int64_t idx[TSR_MAX_DIM] = {0}, at = 0;
	for (int64_t e = 0; e < it->n; e++) {
		if (it->mask[e]) {
			for (int j = 0; j < k; j++)
				c[j * nnz + at] = idx[j];
			at++;
		}
		for (int j = k - 1; j >= 0; j--) {
			if (++idx[j] < it->shape[j])
				break;
			idx[j] = 0;
		}
	}
	*coords_ret = c;
	*nnz_ret = nnz;
	return TSR_OK;
}

/* Broadcasts the arrays (NumPy's rules) into one group: its points in the broadcast shape's C
 * order, coordinates on the arrays' axes. */
static int tsr_vector_group(struct tsr_bcast_arr *arr, int narr, struct tsr_sel_group *g,
			    int *bnd_ret, int64_t *bshape)
{
	int bnd = 0;
	for (int a = 0; a < narr; a++)
		if (arr[a].ndim > bnd)
			bnd = arr[a].ndim;
	for (int d = 0; d < bnd; d++) {
		int64_t size = 1;
		for (int a = 0; a < narr; a++) {
			int ad = d - (bnd - arr[a].ndim);
			int64_t s = ad >= 0 ? arr[a].shape[ad] : 1;
			if (s == 1)
				continue;
			if (size != 1 && size != s) {
				char msg[1024], one[200];
				size_t n = (size_t)snprintf(msg, sizeof(msg), "shape mismatch: indexing "
							    "arrays could not be broadcast together with "
							    "shapes");
				for (int b = 0; b < narr && n < sizeof(msg); b++) {
					if (!arr[b].ndim) /* (scalars left out, as NumPy's) */
						continue;
					tsr_shape_text(one, sizeof(one), arr[b].ndim, arr[b].shape);
					n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s", one);
				}
				return tsr_error(TSR_E_SELECTION, "%s", msg);
			}
			size = s;
		}
		bshape[d] = size;
	}
	int64_t npts = 1;
	for (int d = 0; d < bnd; d++) {
		if (bshape[d] && npts > INT64_MAX / 16 / TSR_MAX_DIM / bshape[d])
			return tsr_error(TSR_E_SELECTION, "the indexing arrays broadcast to too many points");
		npts *= bshape[d];
	}
	g->naxes = narr;
	g->npts = npts;
	g->coords = malloc((size_t)npts * (size_t)narr * sizeof(int64_t) + 1);
	if (!g->coords)
		return tsr_error(TSR_E_NOMEM, "out of memory for %lld points", (long long)npts);
	/* per array, the element stride of each broadcast dim (0 where it broadcasts) */
	int64_t str[2 * TSR_MAX_DIM][TSR_MAX_DIM], off[2 * TSR_MAX_DIM] = {0};
	for (int a = 0; a < narr; a++) {
		g->axes[a] = arr[a].axis;
		int64_t s = 1;
		for (int d = bnd - 1; d >= 0; d--) {
			int ad = d - (bnd - arr[a].ndim);
			int64_t n = ad >= 0 ? arr[a].shape[ad] : 1;
			str[a][d] = n == 1 ? 0 : s;
			s *= n;
		}
	}
	int64_t idx[TSR_MAX_DIM] = {0};
	for (int64_t p = 0; p < npts; p++) {
		for (int a = 0; a < narr; a++)
			g->coords[p * narr + a] = arr[a].vals[off[a]];
		for (int d = bnd - 1; d >= 0; d--) {
			for (int a = 0; a < narr; a++)
				off[a] += str[a][d];
			if (++idx[d] < bshape[d])
				break;
			for (int a = 0; a < narr; a++)
				off[a] -= str[a][d] * bshape[d];
			idx[d] = 0;
		}
	}
	*bnd_ret = bnd;
	return TSR_OK;
}

/* What the output dims hold: an array axis (>= 0), a None (-1) or a group's dims (-2 - g). */
struct tsr_out_dims {
	int n;
	int64_t size[4 * TSR_MAX_DIM];
	int tag[4 * TSR_MAX_DIM];
};

static void tsr_out_push(struct tsr_out_dims *o, int64_t size, int tag)
{
	if (o->n < 4 * TSR_MAX_DIM) {
		o->size[o->n] = size;
		o->tag[o->n] = tag;
	}
	o->n++;
}

static int tsr_index_normalize_impl(const struct tsr_index *ix, int ndim, const int64_t *shape,
				    struct tsr_norm_sel *out)
{
	int nell = 0, consumed = 0, narrays = 0, st;
	for (int i = 0; i < ix->nitems; i++) {
		const struct tsr_index_item *it = &ix->items[i];
		switch (it->kind) {
		case TSR_SEL_ELLIPSIS: nell++; break;
		case TSR_SEL_NEWAXIS: break;
		case TSR_SEL_MASK: consumed += it->ndim; narrays++; break;
		case TSR_SEL_ARRAY: consumed++; narrays++; break;
		default: consumed++; break;
		}
	}
	if (nell > 1)
		return tsr_error(TSR_E_SELECTION, "an index can only have a single ellipsis ('...')");
	if (consumed > ndim)
		return tsr_error(TSR_E_SELECTION, "too many indices for array: array is "
				 "%d-dimensional, but %d were indexed", ndim, consumed);
	int orth = ix->mode == TSR_INDEX_ORTHOGONAL;
	int vector = !orth && narrays > 0;
	/* first array axis of each item */
	int first[2 * TSR_MAX_DIM], axis = 0;
	for (int i = 0; i < ix->nitems; i++) {
		const struct tsr_index_item *it = &ix->items[i];
		first[i] = axis;
		if (it->kind == TSR_SEL_ELLIPSIS)
			axis += ndim - consumed;
		else if (it->kind == TSR_SEL_MASK)
			axis += it->ndim;
		else if (it->kind != TSR_SEL_NEWAXIS)
			axis++;
		if (orth && (it->kind == TSR_SEL_ARRAY || it->kind == TSR_SEL_MASK) && it->ndim != 1)
			return tsr_error(TSR_E_SELECTION, "an orthogonal index takes 1-D arrays and "
					 "masks (item %d has %d dims)", i, it->ndim);
	}
	/* basic axes: all of them to start with; items narrow them */
	for (int d = 0; d < ndim; d++) {
		out->dim[d].start = 0;
		out->dim[d].step = 1;
		out->dim[d].count = shape[d];
		out->dim[d].keep = 1;
	}
	int is_adv[2 * TSR_MAX_DIM] = {0}, nadv = 0, adv_first = -1, adv_last = -1;
	for (int i = 0; i < ix->nitems; i++) {
		const struct tsr_index_item *it = &ix->items[i];
		int a = first[i];
		if (it->kind == TSR_SEL_SLICE) {
			if ((st = tsr_sel_slice_axis(&it->basic, a, shape[a], &out->dim[a])))
				return st;
		} else if (it->kind == TSR_SEL_INDEX && !vector) {
			if ((st = tsr_sel_index_axis(it->basic.start, a, shape[a], &out->dim[a])))
				return st;
		} else if (it->kind == TSR_SEL_MASK || it->kind == TSR_SEL_ARRAY ||
			   it->kind == TSR_SEL_INDEX) {
			is_adv[i] = 1;
			nadv++;
			adv_first = adv_first < 0 ? i : adv_first;
			adv_last = i;
		}
	}
	/* the groups */
	int ngroups = vector ? 1 : narrays;
	if (ngroups) {
		out->groups = calloc((size_t)ngroups, sizeof(*out->groups));
		if (!out->groups)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		out->ngroups = ngroups;
	}
	int bnd = 0;
	int64_t bshape[TSR_MAX_DIM];
	if (vector) {
		struct tsr_bcast_arr arr[2 * TSR_MAX_DIM];
		int64_t *owned[2 * TSR_MAX_DIM], zero = 0, nnzs[2 * TSR_MAX_DIM];
		int narr = 0, nowned = 0;
		st = TSR_OK;
		for (int i = 0; i < ix->nitems && !st; i++) {
			const struct tsr_index_item *it = &ix->items[i];
			if (!is_adv[i])
				continue;
			int64_t *v = NULL;
			if (it->kind == TSR_SEL_MASK) {
				int64_t nnz;
				if ((st = tsr_mask_points(it, first[i], shape, &v, &nnz)))
					break;
				owned[nowned] = v;
				nnzs[nowned++] = nnz;
				for (int j = 0; j < it->ndim; j++)
					arr[narr++] = (struct tsr_bcast_arr){1, &nnzs[nowned - 1],
									   v + j * nnz, first[i] + j};
				continue;
			}
			int64_t n = it->kind == TSR_SEL_INDEX ? 1 : it->n;
			v = malloc((size_t)n * sizeof(int64_t) + 1);
			if (!v) {
				st = tsr_error(TSR_E_NOMEM, "out of memory");
				break;
			}
			owned[nowned] = v;
			nnzs[nowned++] = 0;
			if (it->kind == TSR_SEL_INDEX)
				v[0] = it->basic.start;
			else
				memcpy(v, it->values, (size_t)n * sizeof(int64_t));
			/* integers are checked at once; arrays only where the broadcast uses them,
			 * as NumPy does (an empty broadcast checks none of their values) */
			if (it->kind == TSR_SEL_INDEX)
				st = tsr_bounds(&v[0], shape[first[i]], first[i]);
			arr[narr++] = (struct tsr_bcast_arr){it->kind == TSR_SEL_INDEX ? 0 : it->ndim,
							  it->kind == TSR_SEL_INDEX ? &zero : it->shape,
							  v, first[i]};
		}
		if (!st)
			st = tsr_vector_group(arr, narr, &out->groups[0], &bnd, bshape);
		for (int a = 0; a < narr && !st && out->groups[0].npts; a++) {
			int64_t n = 1;
			for (int d = 0; d < arr[a].ndim; d++)
				n *= arr[a].shape[d];
			for (int64_t e = 0; e < n && !st; e++) {
				int64_t x = arr[a].vals[e];
				st = tsr_bounds(&x, shape[arr[a].axis], arr[a].axis);
			}
		}
		if (!st && out->groups[0].npts)
			for (int64_t p = 0; p < out->groups[0].npts; p++)
				for (int a = 0; a < narr; a++) {
					int64_t *c = &out->groups[0].coords[p * narr + a];
					*c += *c < 0 ? shape[arr[a].axis] : 0;
				}
		for (int k = 0; k < nowned; k++)
			free(owned[k]);
		if (st)
			return st;
	} else {
		int g = 0;
		for (int i = 0; i < ix->nitems; i++) {
			const struct tsr_index_item *it = &ix->items[i];
			if (it->kind != TSR_SEL_MASK && it->kind != TSR_SEL_ARRAY)
				continue;
			struct tsr_sel_group *gr = &out->groups[g];
			int a = first[i];
			if (it->kind == TSR_SEL_MASK) {
				if ((st = tsr_mask_points(it, a, shape, &gr->coords, &gr->npts)))
					return st;
			} else if (it->kind == TSR_SEL_ARRAY) {
				gr->npts = it->n;
				gr->coords = malloc((size_t)it->n * sizeof(int64_t) + 1);
				if (!gr->coords)
					return tsr_error(TSR_E_NOMEM, "out of memory");
				memcpy(gr->coords, it->values, (size_t)it->n * sizeof(int64_t));
				for (int64_t e = 0; e < it->n; e++)
					if ((st = tsr_bounds(&gr->coords[e], shape[a], a)))
						return st;
			}
			gr->naxes = 1;
			gr->axes[0] = a;
			g++;
		}
	}
	for (int g = 0; g < out->ngroups; g++)
		for (int j = 0; j < out->groups[g].naxes; j++) {
			int a = out->groups[g].axes[j];
			out->group_of[a] = (int8_t)(g + 1);
			out->dim[a] = (struct tsr_dim_sel){0, 1, out->groups[g].npts, 0};
		}

	/* the output dims, in NumPy's order */
	struct tsr_out_dims o = {0};
	int adjacent = vector && adv_last - adv_first + 1 == nadv;
	int ins = -1; /* where the broadcast dims go */
	if (vector && !adjacent) {
		ins = 0;
		for (int d = 0; d < bnd; d++)
			tsr_out_push(&o, bshape[d], -2);
	}
	int g = 0;
	for (int i = 0; i < ix->nitems; i++) {
		const struct tsr_index_item *it = &ix->items[i];
		int a = first[i];
		if (it->kind == TSR_SEL_NEWAXIS) {
			tsr_out_push(&o, 1, -1);
		} else if (it->kind == TSR_SEL_ELLIPSIS) {
			for (int k = 0; k < ndim - consumed; k++)
				tsr_out_push(&o, shape[a + k], a + k);
		} else if (it->kind == TSR_SEL_SLICE) {
			tsr_out_push(&o, out->dim[a].count, a);
		} else if (vector && is_adv[i]) {
			if (adjacent && i == adv_first) {
				ins = o.n;
				for (int d = 0; d < bnd; d++)
					tsr_out_push(&o, bshape[d], -2);
			}
		} else if (it->kind == TSR_SEL_ARRAY || it->kind == TSR_SEL_MASK) {
			tsr_out_push(&o, out->groups[g].npts, -2 - g);
			g++;
		}
	}
	for (int a = consumed + (nell ? ndim - consumed : 0); a < ndim; a++)
		tsr_out_push(&o, shape[a], a);
	if (o.n > TSR_MAX_DIM)
		return tsr_error(TSR_E_SELECTION, "the result would have %d dimensions, more than %d",
				 o.n, TSR_MAX_DIM);
	/* C-order strides: a zero-size dim makes the result empty, and its strides moot */
	int64_t suffix[TSR_MAX_DIM + 1];
	int empty = 0, big = 0;
	suffix[o.n] = 1;
	for (int d = o.n - 1; d >= 0; d--) {
		empty |= o.size[d] == 0;
		if (__builtin_mul_overflow(suffix[d + 1], o.size[d] ? o.size[d] : 1, &suffix[d]))
			big = 1, suffix[d] = 0;
	}
	if (big && !empty)
		return tsr_error(TSR_E_SELECTION, "the result would have more than INT64_MAX elements");
	out->out_ndim = o.n;
	for (int d = 0; d < o.n; d++) {
		out->out_shape[d] = o.size[d];
		if (o.tag[d] >= 0)
			out->axis_stride[o.tag[d]] = suffix[d + 1];
		else if (o.tag[d] <= -2 && !vector)
			out->groups[-2 - o.tag[d]].out_stride = suffix[d + 1];
	}
	if (vector)
		out->groups[0].out_stride = suffix[ins + bnd];
	out->out_count = empty ? 0 : suffix[0];
	return TSR_OK;
}

int tsr_index_normalize(const struct tsr_index *ix, int ndim, const int64_t *shape,
			struct tsr_norm_sel *out)
{
	if (!out)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_normalize: bad arguments");
	/* the basic normaliser's checks of the shape itself (sizes, element count) */
	int st = tsr_selection_normalize(NULL, ndim, shape, out);
	if (st)
		return st;
	memset(out, 0, sizeof(*out));
	if (!ix)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index: NULL index");
	out->ndim = ndim;
	st = tsr_index_normalize_impl(ix, ndim, shape, out);
	if (st)
		tsr_norm_sel_free(out);
	return st;
}
