# gpu-debs.sh - sourced by the GPU machine scripts: tsr_unpack_debs PREFIX unpacks the carried
# Debian packages (.gpu-debs/*.deb: libdeflate, CFITSIO, cJSON, msgpack-c, ..., which that
# machine lacks) into PREFIX, with their .pc files and absolute links pointing into it.
tsr_unpack_debs()
{
	local prefix=$1 libdir="$1/usr/lib/x86_64-linux-gnu" f pc l t
	rm -rf "$prefix" && mkdir -p "$prefix" || return 1
	for f in .gpu-debs/*.deb; do dpkg -x "$f" "$prefix" || return 1; done
	# .pc files name /usr: point them into the prefix (libdeflate's libdir names /usr/lib)
	for pc in "$libdir"/pkgconfig/*.pc "$prefix"/usr/share/pkgconfig/*.pc; do
		[ -f "$pc" ] || continue
		sed -i "s|=/usr|=$prefix/usr|; s|^libdir=$prefix/usr/lib\$|libdir=$libdir|" "$pc"
	done
	# absolute symlinks (libz.so -> /lib/...) point into the prefix
	find "$prefix" -type l | while read -r l; do
		t=$(readlink "$l")
		case "$t" in /*) [ -e "$prefix$t" ] && ln -sfn "$prefix$t" "$l" ;; esac
	done
}
