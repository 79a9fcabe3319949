/* chunk_ref.c - a task's chunk description as engines run it: the driver's, or with mock-host
 * storage the copy that the cache's real fetch settled; its ndim set. */
#include "../io/mock.h"
#include "plan.h"

int tsr_task_chunk_ref(const struct tsr_array *a, int64_t chunk, int mock,
		       struct tsr_chunk_ref *ref)
{
	if (mock) {
		/* sizes exact, missing chunk files turned into fill chunks */
		const struct tsr_mock_chunk *mc = tsr_mock_chunk(a, chunk);
		if (!mc)
			return tsr_error(TSR_E_INTERNAL, "not in the mock-host cache");
		*ref = mc->ref;
	} else {
		int st = a->ops->chunk_ref(a, chunk, ref);
		if (st)
			return st;
	}
	ref->ndim = a->desc.ndim;
	return TSR_OK;
}
