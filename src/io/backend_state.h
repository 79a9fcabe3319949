/* backend_state.h - what storage backends keep per array, hung on the array's opaque backend slot. */
#ifndef TSR_IO_BACKEND_STATE_H
#define TSR_IO_BACKEND_STATE_H

struct tsr_array;
struct tsr_mock_cache;
struct tsr_mock_dev;

/* One array's backend state. Each cache is created by its own backend under its own lock (the
 * mock-host cache's creation lock, the CUDA engine's GPU lock), so the two never race. */
struct tsr_io_state {
	struct tsr_mock_cache *mock;   /* mock-host chunk bytes (mock.c); NULL until the first
					  mock-host read */
	struct tsr_mock_dev *mock_dev; /* mock-device copies (mock_device.c); NULL until used */
};

/* The array's state, attached empty on first use; NULL when out of memory. */
struct tsr_io_state *tsr_io_state(struct tsr_array *array);
/* The array's state, NULL when no backend has attached one. */
struct tsr_io_state *tsr_io_state_find(const struct tsr_array *array);

#endif
