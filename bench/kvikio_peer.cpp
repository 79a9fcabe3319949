// kvikio_peer.cpp - the peer for the engine benchmark: KvikIO (libkvikio from the PyPI wheel,
// carried to the GPU machine; never a dependency of tessera) reads the same files' bytes into
// device memory. Usage: kvikio_peer FILE... ; prints files= bytes= gbps= equal= (the device
// bytes checked against the files), then a table row; GB/s best of 5.
#include <cuda_runtime.h>
#include <kvikio/file_handle.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

int main(int argc, char **argv)
{
	std::vector<std::string> paths(argv + 1, argv + argc);
	std::vector<size_t> sizes;
	size_t total = 0;
	for (auto &p : paths) {
		struct stat st;
		stat(p.c_str(), &st);
		sizes.push_back((size_t)st.st_size);
		total += (size_t)st.st_size;
	}
	void *dev = nullptr;
	if (cudaMalloc(&dev, total) != cudaSuccess) {
		std::printf("cudaMalloc failed\n");
		return 1;
	}
	double best = 1e30;
	for (int it = 0; it < 5; it++) {
		auto t0 = std::chrono::steady_clock::now();
		// Reserved: a growing vector would move handles whose reads are still in flight.
		std::vector<kvikio::FileHandle> fhs;
		fhs.reserve(paths.size());
		std::vector<std::future<std::size_t>> futs;
		size_t off = 0;
		for (size_t i = 0; i < paths.size(); i++) {
			// POSIX mode: this machine has no GPUDirect Storage (no nvidia-fs).
			fhs.emplace_back(paths[i], "r", kvikio::FileHandle::m644, kvikio::CompatMode::ON);
			futs.push_back(fhs.back().pread((char *)dev + off, sizes[i], 0));
			off += sizes[i];
		}
		for (auto &f : futs)
			f.get();
		cudaDeviceSynchronize();
		double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		if (t < best)
			best = t;
	}
	// The bytes on the device must be the files' bytes (peers.py reports this as its check).
	std::vector<char> host(total), want(total);
	bool equal = cudaMemcpy(host.data(), dev, total, cudaMemcpyDeviceToHost) == cudaSuccess;
	size_t off = 0;
	for (size_t i = 0; i < paths.size() && equal; i++) {
		std::FILE *f = std::fopen(paths[i].c_str(), "rb");
		equal = f && std::fread(want.data() + off, 1, sizes[i], f) == sizes[i];
		if (f)
			std::fclose(f);
		off += sizes[i];
	}
	equal = equal && host == want;
	cudaFree(dev);
	std::printf("files=%zu bytes=%zu gbps=%.3f equal=%d\n", paths.size(), total,
		    total / best / 1e9, equal ? 1 : 0);
	std::printf("| %zu files, %.0f MiB | KvikIO pread -> device | %.2f |\n", paths.size(),
		    total / 1048576.0, total / best / 1e9);
	return equal ? 0 : 1;
}
