/* ome.c - OME-Zarr multiscales: a level of an image group is a dataset path (NGFF 0.4 keeps
 * "multiscales" in .zattrs, 0.5 in zarr.json attributes.ome). */
#include <string.h>

#include "zarr.h"

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
	*path_ret = path->valuestring;
	return TSR_OK;
}
