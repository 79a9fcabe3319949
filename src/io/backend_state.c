/* backend_state.c - the storage backends' per-array state: attached to an array's backend slot on first use, freed with the array. */
#include <stdlib.h>

#include "../core/array.h"
#include "backend_state.h"
#include "mock.h"
#include "mock_device.h"

static void tsr_io_state_free(void *p)
{
	struct tsr_io_state *s = p;
	tsr_mock_free(s->mock);
	tsr_mock_dev_free(s->mock_dev);
	free(s);
}

struct tsr_io_state *tsr_io_state(struct tsr_array *a)
{
	struct tsr_io_state *s = tsr_array_backend(a);
	if (s)
		return s;
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	struct tsr_io_state *got = tsr_array_backend_attach(a, s, tsr_io_state_free);
	if (got != s)
		free(s); /* another thread's came first (still empty of ours) */
	return got;
}

struct tsr_io_state *tsr_io_state_find(const struct tsr_array *a)
{
	return tsr_array_backend(a);
}
