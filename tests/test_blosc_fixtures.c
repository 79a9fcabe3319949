/* test_blosc_fixtures.c - chunks c-blosc and c-blosc2 wrote (every codec, filter, split mode, special chunk) decoded whole and block by block. */
#include "blosc_test_util.h"

static void test_fixtures(struct fixture *fx, int nfx, const char *dir)
{
	struct tsr_blosc_scratch *scratch;
	CHECK_EQ_INT(tsr_blosc_scratch_create(&scratch), TSR_OK);
	int seen_v1 = 0, seen_v2 = 0, seen_codec[8] = {0}, seen_special[5] = {0}, seen_memcpy = 0;
	int seen_split = 0, seen_filter[64] = {0};
	for (int i = 0; i < nfx; i++) {
		const struct fixture *f = &fx[i];
		char path[8192];
		size_t cn = 0, dn = 0;
		snprintf(path, sizeof(path), "%s/%s.blosc", dir, f->name);
		uint8_t *c = read_file(path, &cn);
		snprintf(path, sizeof(path), "%s/%s", dir, f->data);
		uint8_t *d = read_file(path, &dn);
		if (!c || !d) {
			fprintf(stderr, "fixture %s: missing files\n", f->name);
			CHECK(0);
			free(c);
			free(d);
			continue;
		}
		struct tsr_blosc_info in;
		int rc = tsr_blosc_info(c, cn, &in);
		CHECK_EQ_INT(rc, TSR_OK);
		if (!rc) {
			int ok = in.version == f->version && in.typesize == f->typesize &&
				 in.nbytes == f->nbytes && in.blocksize == f->blocksize &&
				 in.special == f->special && in.memcpyed == f->memcpyed &&
				 (in.memcpyed || in.special || in.codec == f->codec) &&
				 (in.memcpyed || in.special || in.split == f->split);
			for (int k = 0; k < 6; k++)
				ok &= in.filters[k] == f->filters[k] && in.filters_meta[k] == f->fmeta[k];
			if (!ok) {
				fprintf(stderr,
					"fixture %s: info differs (v %d ts %d nb %lld bs %lld sp %d "
					"mc %d codec %d split %d)\n",
					f->name, in.version, in.typesize, (long long)in.nbytes,
					(long long)in.blocksize, in.special, in.memcpyed, in.codec, in.split);
				CHECK(0);
			}
			seen_v1 += in.version <= 2;
			seen_v2 += in.version >= 3;
			if (!in.memcpyed && !in.special)
				seen_codec[in.codec & 7]++;
			seen_special[in.special]++;
			seen_memcpy += in.memcpyed;
			seen_split += in.split && !in.memcpyed && !in.special;
			for (int k = 0; k < 6; k++)
				seen_filter[in.filters[k] & 63]++;
		}
		check_chunk(f->name, c, cn, d, (size_t)f->nbytes, scratch);
		nfixture_chunks++;
		free(c);
		free(d);
	}
	/* the fixture set covers what the decoder claims to decode */
	CHECK(seen_v1 > 50 && seen_v2 > 100);
	for (int k = 0; k <= 4; k++)
		if (k != 2)
			CHECK(seen_codec[k] > 10);
	for (int k = 1; k <= 4; k++)
		CHECK(seen_special[k] > 0);
	CHECK(seen_memcpy > 0 && seen_split > 20);
	CHECK(seen_filter[1] && seen_filter[2] && seen_filter[3] && seen_filter[4] &&
	      seen_filter[34] && seen_filter[35] && seen_filter[36]);
	tsr_blosc_scratch_free(scratch);
}


int main(void)
{
	char dir[4096];
	struct fixture *fx = NULL;
	int nfx = load_fixtures(&fx, dir, sizeof(dir));
	CHECK(nfx > 200);
	if (nfx > 0)
		{
		test_fixtures(fx, nfx, dir);
		printf("fixtures: %d chunks, %d blocks decoded one by one\n", nfixture_chunks,
		       nfixture_blocks);
	}
	free(fx);
	CHECK_DONE();
}
