/* cmd_read.c - `tessera read`: all of an array or a section into an NPY file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Whether arg is one of read's options that take a value. */
static int tsr_takes_value(const char *arg)
{
	static const char *const opts[] = {"--hdu",	"--array",  "--level", "--dtype",
					   "--section", "--threads", "-o",	"--output",
					   "--device",	"--decoder", "--storage"};
	for (size_t k = 0; k < sizeof(opts) / sizeof(*opts); k++)
		if (!strcmp(arg, opts[k]))
			return 1;
	return 0;
}

int tsr_cli_read(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *section = "", *array = NULL, *dtype = NULL;
	struct tsr_cli_hdu hdu = {.index = -1};
	int raw = 0, threads = 0, receipt = 0, level = -1, cuda = 0, oindex = 0;
	int decoder = TSR_DECODER_AUTO, storage = TSR_STORAGE_REAL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: tessera read PATH [--hdu N|NAME[,VER]] [--array NAME] [--level K] [--section SPEC]\n"
			       "                    [--oindex]\n"
			       "                    [--raw] [--threads N] [--receipt] [--device cpu|cuda]\n"
			       "                    [--decoder auto|cpu|gpu] [--dtype DTYPE]\n"
			       "                    [--storage real|mock-host|mock-device|posix|cufile]\n"
			       "                    -o OUT.npy|-\n"
			       "PATH is a FITS file, a Zarr store or a Blosc2 frame. --array picks an array\n"
			       "of a Zarr group, --level an OME-Zarr multiscale level.\n"
			       "Reads an image (default: the first HDU with image data; N counts HDUs as\n"
			       "astropy does, primary = 0; NAME is an EXTNAME, VER its EXTVER) or a\n"
			       "section of it, written as NPY v1.0, little-endian, C order. SPEC is a\n"
			       "NumPy key: \"10:50,3:200\", \"-1,...,::2\", and integer lists or True/False\n"
			       "masks, nested for more dims, with NumPy's rules: \"[3,1,3],:,5\",\n"
			       "\"...,[[0,2],[1,1]]\"; --oindex takes each list or mask along its own axis\n"
			       "instead (zarr's oindex). --raw returns stored values (no BSCALE/BZERO,\n"
			       "no dequantization). --receipt prints what the read did. --device cuda\n"
			       "reads into GPU memory (then copies back to write OUT); there --decoder\n"
			       "cpu decodes every chunk on the CPU, --decoder gpu uses the GPU decoders\n"
			       "wherever they exist, and auto (the default) too, except for a read of\n"
			       "too few, large DEFLATE streams to keep the GPU busy (lists and masks:\n"
			       "the GPU gathers the points). --storage mock-host reads the chunks\n"
			       "into memory first and decodes them from\n"
			       "there; mock-device (--device cuda) then copies what the GPU needs into\n"
			       "device memory and decodes from there. real (the default) picks cufile\n"
			       "for --device cuda where GPUDirect Storage runs natively, else posix;\n"
			       "cufile forces it (an error saying why where it cannot run).\n"
			       "--dtype (NumPy's spelling: \"<f4\", \"int32\") names the items of a plain\n"
			       "Blosc2 super-chunk, which stores only their size (without it they read\n"
			       "as unsigned integers of that size); for other arrays it reinterprets\n"
			       "the values as another dtype of the same size.\n"
			       "-o - writes the NPY to standard output (the receipt then goes to\n"
			       "standard error).\n");
			return 0;
		} else if (!strcmp(argv[i], "--hdu") && i + 1 < argc) {
			if (tsr_cli_hdu_arg(argv[++i], &hdu)) {
				fprintf(stderr, "tessera read: --hdu is " TSR_CLI_HDU_CHOICES
					", not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--array") && i + 1 < argc) {
			array = argv[++i];
		} else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
			if (tsr_cli_parse_int(argv[++i], 0, 1L << 30, &level)) {
				fprintf(stderr, "tessera read: bad --level '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
			dtype = argv[++i];
		} else if (!strcmp(argv[i], "--section") && i + 1 < argc) {
			section = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			if (tsr_cli_parse_int(argv[++i], 0, 1 << 16, &threads)) {
				fprintf(stderr, "tessera read: bad --threads '%s'\n", argv[i]);
				return 2;
			}
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "cuda"))
				cuda = 1;
			else if (strcmp(argv[i], "cpu")) {
				fprintf(stderr, "tessera read: --device is cpu or cuda, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--decoder") && i + 1 < argc) {
			i++;
			if ((decoder = tsr_cli_decoder(argv[i])) < 0) {
				fprintf(stderr, "tessera read: --decoder is " TSR_CLI_DECODER_CHOICES
					", not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--storage") && i + 1 < argc) {
			i++;
			if ((storage = tsr_cli_storage(argv[i])) < 0) {
				fprintf(stderr, "tessera read: --storage is " TSR_CLI_STORAGE_CHOICES
					", not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--oindex")) {
			oindex = 1;
		} else if (!strcmp(argv[i], "--raw")) {
			raw = 1;
		} else if (!strcmp(argv[i], "--receipt")) {
			receipt = 1;
		} else if (i + 1 == argc && tsr_takes_value(argv[i])) {
			/* (an option that takes a value, last with none) */
			fprintf(stderr, "tessera read: %s needs a value (see --help)\n", argv[i]);
			return 2;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "tessera read: unexpected argument '%s'\n", argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path || !out) {
		fprintf(stderr, "tessera read: need PATH and -o OUT.npy (see --help)\n");
		return 2;
	}
	/* A key with lists (or --oindex) is an advanced selection: a tsr_index. */
	struct tsr_selection sel;
	struct tsr_index *ix = NULL;
	if ((strchr(section, '[') || oindex) ?
		    tsr_index_parse(section, oindex ? TSR_INDEX_ORTHOGONAL : TSR_INDEX_NUMPY, &ix) :
		    tsr_selection_parse(section, &sel)) {
		fprintf(stderr, "tessera read: %s: %s\n", path, tsr_errmsg());
		return 1;
	}
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {sizeof(co), threads};
	struct tsr_open_options oo = {sizeof(oo), -1, raw, array, level, NULL, 0, dtype};
	tsr_cli_hdu_apply(&hdu, &oo);
	struct tsr_array *a = NULL;
	void *data = NULL;
	size_t nbytes = 0;
	int ndim = 0, rc = 1;
	int64_t shape[TSR_MAX_DIM];
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .decoder = decoder,
				      .storage = storage};
	if (tsr_context_create(&co, &ctx) || tsr_open(ctx, path, &oo, &a)) {
		fprintf(stderr, "tessera read: %s\n", tsr_errmsg());
		goto done;
	}
	if (cuda) {
		/* Into device memory, then back to the host for the file. */
		void *dev = NULL;
		if (ix ? tsr_index_shape(a, ix, &ndim, shape) : tsr_selection_shape(a, &sel, &ndim, shape)) {
			fprintf(stderr, "tessera read: %s\n", tsr_errmsg());
			goto done;
		}
		struct tsr_array_info ai = {.struct_size = sizeof(ai)};
		tsr_array_info(a, &ai);
		nbytes = tsr_dtype_size(ai.dtype);
		for (int d = 0; d < ndim; d++)
			nbytes *= (size_t)shape[d];
		data = malloc(nbytes ? nbytes : 1);
		struct tsr_buffer dst = {NULL, nbytes, TSR_MEM_CUDA, NULL};
		if (!data) {
			fprintf(stderr, "tessera read: out of memory\n");
			goto done;
		}
		/* the read's own messages name the file; the CLI's allocation and copy do not */
		int st = tsr_cuda_malloc(nbytes, &dev), own = st != 0;
		dst.data = dev;
		if (!st)
			st = ix ? tsr_read_index(a, ix, &dst, &ro, &r) : tsr_read(a, &sel, &dst, &ro, &r);
		if (!st)
			own = (st = tsr_cuda_memcpy_to_host(data, dev, nbytes)) != 0;
		tsr_cuda_free(dev);
		if (st) {
			fprintf(stderr, "tessera read: %s%s%s\n", own ? path : "", own ? ": " : "",
				tsr_errmsg());
			goto done;
		}
	} else if (ix ? tsr_read_index_alloc(a, ix, &ro, &data, &nbytes, &ndim, shape, &r) :
			tsr_read_alloc(a, &sel, &ro, &data, &nbytes, &ndim, shape, &r)) {
		fprintf(stderr, "tessera read: %s\n", tsr_errmsg());
		goto done;
	}
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	tsr_array_info(a, &in);
	if (tsr_cli_write_npy(out, in.descr, ndim, shape, data, nbytes)) {
		fprintf(stderr, "tessera read: %s: %s\n", strcmp(out, "-") ? out : "standard output",
			strerror(errno));
		goto done;
	}
	/* With the NPY on standard output, the receipt goes to standard error. */
	if (receipt)
		fprintf(strcmp(out, "-") ? stdout : stderr, "driver %s  backend %s  engine %s  codec %s  reader %s  threads %d\n"
		       "chunks %lld of %lld  read %llu B  decoded %llu B  out %llu B\n"
		       "plan %.6f s  fetch %.6f s  decode %.6f s  place %.6f s  total %.6f s"
		       "  wait %.6f s%s%s%s%s\n",
		       r.driver, r.backend, r.engine, r.codec, r.reader, r.nthreads,
		       (long long)r.chunks_read, (long long)r.chunks_total,
		       (unsigned long long)r.bytes_read, (unsigned long long)r.bytes_decoded,
		       (unsigned long long)r.bytes_out, r.t_plan, r.t_fetch, r.t_decode, r.t_place,
		       r.t_total, r.t_wait, r.decoder[0] ? "\ndecoder: " : "", r.decoder,
		       r.fallback[0] ? "\nfallback: " : "", r.fallback);
	rc = 0;
done:
	if (cuda)
		free(data);
	else
		tsr_free(data);
	tsr_array_free(a);
	tsr_context_free(ctx);
	tsr_index_free(ix);
	return rc;
}
