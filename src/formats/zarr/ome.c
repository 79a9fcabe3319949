/* ome.c - OME-Zarr multiscales: a level of an image group is a dataset path (NGFF 0.4 keeps
 * "multiscales" in .zattrs, 0.5 in zarr.json attributes.ome). */
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

/* A dataset path relative to its group as NGFF writes it: "0", or "./0" (a leading "./" names
 * the group itself, which array paths otherwise refuse as '.'). */
static const char *tsr_ome_rel(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

int tsr_zarr_ome_level(const cJSON *attrs, int level, const char **path_ret, int *nlevels_ret)
{
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(attrs, "multiscales");
	if (!ms) {
		const cJSON *ome = cJSON_GetObjectItemCaseSensitive(attrs, "ome");
		ms = cJSON_GetObjectItemCaseSensitive(ome, "multiscales");
	}
	if (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) == 0)
		return TSR_E_NOT_FOUND;
	/* Several multiscales: the first, as the specification suggests by default. */
	const cJSON *datasets = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ms, 0), "datasets");
	if (!cJSON_IsArray(datasets))
		return tsr_error(TSR_E_FORMAT, "multiscales[0] has no 'datasets' list");
	int n = cJSON_GetArraySize(datasets);
	if (nlevels_ret)
		*nlevels_ret = n;
	if (level < 0 || level >= n)
		return tsr_error(TSR_E_RANGE, "multiscale level %d out of range: %d levels", level, n);
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(datasets, level), "path");
	if (!cJSON_IsString(path))
		return tsr_error(TSR_E_FORMAT, "multiscales[0].datasets[%d] has no 'path'", level);
	*path_ret = tsr_ome_rel(path->valuestring);
	return TSR_OK;
}

/* Does a multiscales entry of attrs, of NGFF 0.2 to 0.4, list dataset path `name`? Those
 * versions store chunks under '/' alone ("since v0.2, / is the only allowed dimension
 * separator": an image written by zarr-python before 2.8 has no dimension_separator in its
 * .zarray, and ome-zarr-py reads it with '/'). */
int tsr_zarr_ome_nested(const cJSON *attrs, const char *name)
{
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(attrs, "multiscales"), *m, *d;
	if (!cJSON_IsArray(ms))
		return 0;
	cJSON_ArrayForEach(m, ms) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "version");
		if (!cJSON_IsString(v) || (strcmp(v->valuestring, "0.2") &&
					   strcmp(v->valuestring, "0.3") &&
					   strcmp(v->valuestring, "0.4")))
			continue;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(m, "datasets")) {
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(d, "path");
			char *norm = NULL;
			if (!cJSON_IsString(p) || tsr_zarr_norm_path(tsr_ome_rel(p->valuestring), &norm))
				continue;
			int same = !strcmp(norm, name);
			free(norm);
			if (same)
				return 1;
		}
	}
	return 0;
}
