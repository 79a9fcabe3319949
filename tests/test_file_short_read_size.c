/* test_file_short_read_size.c - a read past a file's end names the file's size as it is now: a
 * FITS file truncated to 1,000 bytes after its open said "file ends after 2880 bytes" (the
 * offset asked for), not the size it had. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/file.h"
#include "tessera.h"
#include "write_file.h"

int main(void)
{
	char path[] = "/tmp/tsr_short_readXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static unsigned char bytes[1000], buf[200];
	CHECK_EQ_INT(write_file(path, bytes, sizeof(bytes)), 0);
	CHECK_EQ_INT(tsr_file_pread(fd, buf, 100, 0), TSR_OK);
	CHECK_EQ_INT(tsr_file_pread(fd, buf, 100, 2880), TSR_E_IO);
	CHECK(strstr(tsr_errmsg(), "file ends after 1000 bytes, needed 100 bytes at offset 2880"));
	CHECK_EQ_INT(tsr_file_pread(fd, buf, 100, 950), TSR_E_IO);
	CHECK(strstr(tsr_errmsg(), "file ends after 1000 bytes, needed 100 bytes at offset 950"));
	close(fd);
	remove(path);
	CHECK_DONE();
}
