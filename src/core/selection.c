/* selection.c - parses NumPy basic-indexing strings and normalises them against a shape. */
#include <stdio.h>
#include <string.h>

#include "selection.h"

/* ---- parsing ---- */

/* How much of a spec an error message quotes; the column number still points into the whole
 * spec, so a long one stays usable. */
#define TSR_SPEC_QUOTE 200

struct tsr_sel_parser {
	const char *spec;
	const char *p;
};

static int sel_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Digits by hand rather than isdigit(): the locale must not change what a selection means. */
static int sel_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int sel_is_ident(char c)
{
	return sel_is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void sel_skip_space(struct tsr_sel_parser *ps)
{
	while (sel_is_space(*ps->p))
		ps->p++;
}

static int sel_fail(const struct tsr_sel_parser *ps, const char *at, const char *what)
{
	size_t len = strlen(ps->spec);
	int quoted = len > TSR_SPEC_QUOTE ? TSR_SPEC_QUOTE : (int)len;

	return tsr_error(TSR_E_SELECTION, "selection \"%.*s%s\": column %lld: %s", quoted, ps->spec,
			 len > TSR_SPEC_QUOTE ? "..." : "", (long long)(at - ps->spec) + 1, what);
}

/* "None" as a whole word, so that "Nonesuch" is not None followed by garbage. */
static int sel_at_none(const char *p)
{
	return strncmp(p, "None", 4) == 0 && !sel_is_ident(p[4]);
}

/* [+-] [space] digits, into *v; anything beyond int64 is an error rather than a silent wrap. */
static int sel_parse_int(struct tsr_sel_parser *ps, int64_t *v)
{
	const char *begin = ps->p;
	int neg = 0;
	/* The magnitude is gathered unsigned so that INT64_MIN, whose magnitude has no positive
	 * int64, parses too. */
	uint64_t mag = 0, limit;

	if (*ps->p == '+' || *ps->p == '-') {
		neg = *ps->p == '-';
		ps->p++;
		sel_skip_space(ps);
	}
	if (!sel_is_digit(*ps->p))
		return sel_fail(ps, ps->p, "expected digits");
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (sel_is_digit(*ps->p)) {
		unsigned d = (unsigned)(*ps->p - '0');
		if (mag > (limit - d) / 10)
			return sel_fail(ps, begin, "integer does not fit in 64 bits");
		mag = mag * 10 + d;
		ps->p++;
	}
	if (neg)
		*v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	else
		*v = (int64_t)mag;
	return TSR_OK;
}

/* One item: "...", "None", an integer, or start:stop:step with any part left out (a part may
 * also be spelled None, as Python allows). */
static int sel_parse_item(struct tsr_sel_parser *ps, struct tsr_sel_item *it)
{
	const char *begin;
	int64_t v[3] = {0, 0, 0};
	unsigned char has[3] = {0, 0, 0};
	int ncolons = 0, first_none = 0, rc;

	memset(it, 0, sizeof(*it));
	sel_skip_space(ps);
	begin = ps->p;
	if (strncmp(ps->p, "...", 3) == 0) {
		ps->p += 3;
		it->kind = TSR_SEL_ELLIPSIS;
		return TSR_OK;
	}
	for (;;) {
		sel_skip_space(ps);
		if (sel_at_none(ps->p)) {
			ps->p += 4;
			if (ncolons == 0)
				first_none = 1;
		} else if (*ps->p == '+' || *ps->p == '-' || sel_is_digit(*ps->p)) {
			rc = sel_parse_int(ps, &v[ncolons]);
			if (rc)
				return rc;
			has[ncolons] = 1;
		}
		sel_skip_space(ps);
		if (*ps->p != ':')
			break;
		if (ncolons == 2)
			return sel_fail(ps, ps->p, "a slice has at most three parts (start:stop:step)");
		ncolons++;
		ps->p++;
	}
	if (ncolons == 0) {
		if (has[0]) {
			it->kind = TSR_SEL_INDEX;
			it->start = v[0];
		} else if (first_none) {
			it->kind = TSR_SEL_NEWAXIS;
		} else if (*ps->p == ',' || *ps->p == '\0') {
			return sel_fail(ps, begin, "empty item");
		} else {
			return sel_fail(ps, begin, "expected an integer, a slice, '...' or None");
		}
		return TSR_OK;
	}
	it->kind = TSR_SEL_SLICE;
	it->start = v[0];
	it->stop = v[1];
	it->step = v[2];
	it->has_start = has[0];
	it->has_stop = has[1];
	it->has_step = has[2];
	return TSR_OK;
}

int tsr_selection_parse(const char *spec, struct tsr_selection *sel_ret)
{
	struct tsr_sel_parser ps;
	int rc;

	if (!spec || !sel_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_selection_parse: NULL argument");
	memset(sel_ret, 0, sizeof(*sel_ret));
	ps.spec = spec;
	ps.p = spec;
	sel_skip_space(&ps);
	if (*ps.p == '\0')
		return TSR_OK; /* everything, as x[()] */
	for (;;) {
		if (sel_ret->nitems == 2 * TSR_MAX_DIM) {
			char what[64];
			snprintf(what, sizeof(what), "more than %d items", 2 * TSR_MAX_DIM);
			sel_ret->nitems = 0;
			return sel_fail(&ps, ps.p, what);
		}
		rc = sel_parse_item(&ps, &sel_ret->items[sel_ret->nitems]);
		if (rc) {
			sel_ret->nitems = 0;
			return rc;
		}
		sel_ret->nitems++;
		sel_skip_space(&ps);
		if (*ps.p == '\0')
			break;
		if (*ps.p != ',') {
			sel_ret->nitems = 0;
			return sel_fail(&ps, ps.p, "expected ',' or the end after an item");
		}
		ps.p++;
		sel_skip_space(&ps);
		/* One trailing comma makes a tuple, as in Python: "3," is x[3,]. */
		if (*ps.p == '\0')
			break;
	}
	return TSR_OK;
}

/* ---- normalisation ---- */

static void sel_full_axis(struct tsr_dim_sel *d, int64_t n)
{
	d->start = 0;
	d->step = 1;
	d->count = n;
	d->keep = 1;
}

/* One bound of a slice, as CPython's PySlice_AdjustIndices: negative counts from the end, then
 * clamp to [lo, hi], where lo/hi are 0/n going forward and -1/n-1 going backward. */
static int64_t sel_adjust(int64_t i, int64_t n, int64_t lo, int64_t hi)
{
	if (i < 0) {
		i += n; /* cannot overflow: i < 0 <= n */
		if (i < 0)
			i = lo;
	} else if (i >= n) {
		i = hi;
	}
	return i;
}

int tsr_sel_slice_axis(const struct tsr_sel_item *it, int axis, int64_t n, struct tsr_dim_sel *d)
{
	int64_t step = it->has_step ? it->step : 1, start, stop, count;

	if (step == 0)
		return tsr_error(TSR_E_SELECTION, "axis %d: slice step cannot be zero", axis);
	/* CPython clamps the step the same way, so that -step below cannot overflow; with any
	 * n <= INT64_MAX such a step selects at most one element either way. */
	if (step == INT64_MIN)
		step = -INT64_MAX;
	if (step > 0) {
		start = it->has_start ? sel_adjust(it->start, n, 0, n) : 0;
		stop = it->has_stop ? sel_adjust(it->stop, n, 0, n) : n;
		/* stop - start - 1 <= n - 1: no overflow. */
		count = start < stop ? (stop - start - 1) / step + 1 : 0;
	} else {
		start = it->has_start ? sel_adjust(it->start, n, -1, n - 1) : n - 1;
		stop = it->has_stop ? sel_adjust(it->stop, n, -1, n - 1) : -1;
		/* start - stop - 1 <= (n - 1) - (-1) - 1: no overflow. */
		count = stop < start ? (start - stop - 1) / -step + 1 : 0;
	}
	/* With fewer than two elements the step means nothing; 1 spares later code from huge
	 * steps, and an empty axis gets a start inside any array (0) rather than -1 or n. */
	d->start = count > 0 ? start : 0;
	d->step = count > 1 ? step : 1;
	d->count = count;
	d->keep = 1;
	return TSR_OK;
}

int tsr_sel_index_axis(int64_t i, int axis, int64_t n, struct tsr_dim_sel *d)
{
	int64_t j = i < 0 ? i + n : i; /* i + n cannot overflow: i < 0 <= n */

	if (j < 0 || j >= n)
		return tsr_error(TSR_E_RANGE, "index %lld is out of bounds for axis %d with size %lld",
				 (long long)i, axis, (long long)n);
	d->start = j;
	d->step = 1;
	d->count = 1;
	d->keep = 0;
	return TSR_OK;
}

int tsr_selection_normalize(const struct tsr_selection *sel, int ndim, const int64_t *shape,
			    struct tsr_norm_sel *out)
{
	int nitems = sel ? sel->nitems : 0, nell = 0, nidx = 0, nint = 0, nnew = 0, axis = 0;
	int64_t total = 1;
	int i, k, rc;

	if (!out || ndim < 0 || ndim > TSR_MAX_DIM || (ndim > 0 && !shape))
		return tsr_error(TSR_E_INVALID_ARG, "tsr_selection_normalize: bad arguments");
	if (nitems < 0 || nitems > 2 * TSR_MAX_DIM)
		return tsr_error(TSR_E_INVALID_ARG, "selection: %d items", nitems);
	/* The element count of the array bounds every result count, so checking it here keeps
	 * out_count from overflowing below. */
	for (i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return tsr_error(TSR_E_INVALID_ARG, "selection: axis %d has size %lld", i,
					 (long long)shape[i]);
	}
	for (i = 0; i < ndim; i++) {
		if (shape[i] == 0) {
			total = 0;
			break;
		}
	}
	for (i = 0; i < ndim && total != 0; i++) {
		if (total > INT64_MAX / shape[i])
			return tsr_error(TSR_E_INVALID_ARG,
					 "selection: the array has more than INT64_MAX elements");
		total *= shape[i];
	}

	memset(out, 0, sizeof(*out));
	out->ndim = ndim;
	for (i = 0; i < nitems; i++) {
		switch (sel->items[i].kind) {
		case TSR_SEL_INDEX:
			nint++;
			nidx++;
			break;
		case TSR_SEL_SLICE:
			nidx++;
			break;
		case TSR_SEL_ELLIPSIS:
			nell++;
			break;
		case TSR_SEL_NEWAXIS:
			nnew++;
			break;
		case TSR_SEL_ARRAY:
		case TSR_SEL_MASK:
			return tsr_error(TSR_E_INVALID_ARG, "selection: item %d is an array or mask: "
					 "those go in a tsr_index (tsr_read_index)", i);
		default:
			return tsr_error(TSR_E_INVALID_ARG, "selection: item %d has kind %d", i,
					 (int)sel->items[i].kind);
		}
	}
	/* The same checks, in the same order, as NumPy's prepare_index, so that a selection
	 * with several faults fails the way NumPy would. */
	if (nell > 1)
		return tsr_error(TSR_E_SELECTION, "an index can only have a single ellipsis ('...')");
	if (nidx > ndim)
		return tsr_error(TSR_E_SELECTION,
				 "too many indices for array: array is %d-dimensional, but %d were indexed",
				 ndim, nidx);
	if (ndim - nint + nnew > TSR_MAX_DIM)
		return tsr_error(TSR_E_SELECTION,
				 "the result would have %d dimensions, more than %d",
				 ndim - nint + nnew, TSR_MAX_DIM);

	for (i = 0; i < nitems; i++) {
		const struct tsr_sel_item *it = &sel->items[i];
		switch (it->kind) {
		case TSR_SEL_INDEX:
			rc = tsr_sel_index_axis(it->start, axis, shape[axis], &out->dim[axis]);
			if (rc)
				return rc;
			axis++;
			break;
		case TSR_SEL_SLICE:
			rc = tsr_sel_slice_axis(it, axis, shape[axis], &out->dim[axis]);
			if (rc)
				return rc;
			out->out_shape[out->out_ndim++] = out->dim[axis].count;
			axis++;
			break;
		case TSR_SEL_ELLIPSIS:
			for (k = 0; k < ndim - nidx; k++, axis++) {
				sel_full_axis(&out->dim[axis], shape[axis]);
				out->out_shape[out->out_ndim++] = shape[axis];
			}
			break;
		case TSR_SEL_NEWAXIS:
			out->out_shape[out->out_ndim++] = 1;
			break;
		default: /* refused above */
			break;
		}
	}
	/* Without an ellipsis the axes left over are taken whole, as NumPy appends one. */
	for (; axis < ndim; axis++) {
		sel_full_axis(&out->dim[axis], shape[axis]);
		out->out_shape[out->out_ndim++] = shape[axis];
	}

	/* A zero anywhere makes the count 0; without one, every axis of the array is non-empty
	 * and the product is at most the array's element count, checked above. */
	out->out_count = 1;
	for (i = 0; i < out->out_ndim; i++) {
		if (out->out_shape[i] == 0) {
			out->out_count = 0;
			break;
		}
	}
	for (i = 0; i < out->out_ndim && out->out_count != 0; i++)
		out->out_count *= out->out_shape[i];
	return TSR_OK;
}

void tsr_shape_text(char *buf, size_t cap, int ndim, const int64_t *shape)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, cap - n, "(");
	for (int d = 0; d < ndim && n < cap; d++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : "", (long long)shape[d]);
	if (n < cap)
		snprintf(buf + n, cap - n, "%s)", ndim == 1 ? "," : "");
}
