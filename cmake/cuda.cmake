# cuda.cmake - optional CUDA build: the src/cuda kernels (tessera_cuda), GPU tests and GPU benchmarks.
#
# TESSERA_CUDA: AUTO (default: CUDA when a CUDA compiler is found), ON (required) or OFF.
# The kernels build for sm_90 machine code plus PTX, so a build needs no GPU; binaries start on
# machines without one (the GPU tests then print "skipped: no CUDA device" and pass).

set(TESSERA_CUDA "AUTO" CACHE STRING "Build the CUDA kernels: AUTO (if nvcc is found), ON or OFF")
set_property(CACHE TESSERA_CUDA PROPERTY STRINGS AUTO ON OFF)
option(TESSERA_CUDA_PTXAS_VERBOSE "Print ptxas register/spill reports for the kernels" OFF)

set(TSR_CUDA_ENABLED OFF)
string(TOUPPER "${TESSERA_CUDA}" _tsr_cuda_mode)
if(_tsr_cuda_mode STREQUAL "AUTO" OR TESSERA_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(TSR_CUDA_ENABLED ON)
  elseif(NOT _tsr_cuda_mode STREQUAL "AUTO")
    message(FATAL_ERROR "TESSERA_CUDA=${TESSERA_CUDA} but no CUDA compiler (nvcc) was found")
  endif()
endif()
if(NOT TSR_CUDA_ENABLED)
  message(STATUS "tessera: CUDA off")
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
# Programs link with the C compiler: they need only cudart (static), not nvcc's link step, and
# C link options (sanitizers) must reach the linker untouched.
set(CMAKE_CUDA_LINKER_PREFERENCE_PROPAGATES 0)
message(STATUS "tessera: CUDA on (${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")

# nvcc takes its own options: drop the C-only ones (-Wall, -ffp-contract, -fsanitize) the top
# level adds to every target of the directory, and pass what matters to the host compiler.
function(tsr_cuda_target_options target)
  set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS "")
  set_property(TARGET ${target} PROPERTY LINK_OPTIONS "")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-fvisibility=hidden>
    $<$<COMPILE_LANGUAGE:CUDA>:-D_GNU_SOURCE>
    $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${TESSERA_CUDA_PTXAS_VERBOSE}>>:-Xptxas=-v>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -D_GNU_SOURCE -ffp-contract=off>)
endfunction()

file(GLOB TSR_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
add_library(tessera_cuda STATIC ${TSR_CUDA_SOURCES})
tsr_cuda_target_options(tessera_cuda)
target_include_directories(tessera_cuda PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                           $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
target_link_libraries(tessera_cuda PUBLIC CUDA::cudart_static)
set_target_properties(tessera_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON)

# The library's C sources see the CUDA runtime header and TSR_WITH_CUDA.
target_compile_definitions(tessera_obj PUBLIC TSR_WITH_CUDA=1)
target_include_directories(tessera_obj PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(tessera_static INTERFACE TSR_WITH_CUDA=1)
target_link_libraries(tessera_static PUBLIC tessera_cuda)
# Into the shared library privately (its users must not link a second static cudart), and
# with the archives' symbols hidden so that it still exports tsr_ symbols only.
target_link_libraries(tessera PRIVATE tessera_cuda)
target_link_options(tessera PRIVATE "LINKER:--exclude-libs,ALL")

# ---- GPU tests: tests/gpu/test_*.c (and .cu), each a CTest test labelled "gpu" ----
if(TESSERA_BUILD_TESTS)
  pkg_check_modules(TSR_ZLIB REQUIRED IMPORTED_TARGET zlib)
  file(GLOB TSR_GPU_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/gpu/test_*.c
       ${PROJECT_SOURCE_DIR}/tests/gpu/test_*.cu)
  foreach(src ${TSR_GPU_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    if(src MATCHES "\\.cu$")
      tsr_cuda_target_options(${name})
    endif()
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src/cuda
                               ${PROJECT_SOURCE_DIR}/tests/gpu)
    target_link_libraries(${name} PRIVATE tessera_cuda PkgConfig::DEFLATE PkgConfig::TSR_ZLIB
                          PkgConfig::LZ4 Threads::Threads m)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS gpu)
  endforeach()
endif()

# ---- GPU benchmarks: bench/gpu_*.cu ----
if(TESSERA_BUILD_BENCH)
  if(NOT TARGET PkgConfig::TSR_ZLIB)
    pkg_check_modules(TSR_ZLIB REQUIRED IMPORTED_TARGET zlib)
  endif()
  file(GLOB TSR_GPU_BENCH CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bench/gpu_*.cu)
  foreach(src ${TSR_GPU_BENCH})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    tsr_cuda_target_options(${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src/cuda
                               ${PROJECT_SOURCE_DIR}/tests/gpu)
    target_link_libraries(${name} PRIVATE tessera_cuda PkgConfig::DEFLATE PkgConfig::TSR_ZLIB
                          PkgConfig::LZ4 Threads::Threads m ${CMAKE_DL_LIBS})
  endforeach()
  # gpu_lz_bench --frames checks BloscLZ streams against the library's CPU decoder.
  target_include_directories(gpu_lz_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpu_lz_bench PRIVATE tessera_static)
  # The nvCOMP peer of bench/peers.py: nvCOMP itself is loaded at run time (dlopen), never
  # linked; libdeflate / libzstd give the reference decode, CFITSIO the FITS tiles.
  add_executable(nvcomp_peer ${PROJECT_SOURCE_DIR}/bench/nvcomp_peer.cu)
  tsr_cuda_target_options(nvcomp_peer)
  target_link_libraries(nvcomp_peer PRIVATE CUDA::cudart_static PkgConfig::DEFLATE PkgConfig::ZSTD
                        PkgConfig::CFITSIO ${CMAKE_DL_LIBS})
endif()

# The zstd test and benchmark compress with libzstd and run the decoder's code on the CPU.
foreach(t test_gpu_zstd gpu_zstd_bench)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${t} PRIVATE PkgConfig::ZSTD)
  endif()
endforeach()

# The RICE test and benchmark compress with CFITSIO and compare with the library's CPU decoder;
# test_gpu_devices reads through the library (device lists against the single-device read);
# test_gpu_slot_reads runs the CUDA engine's slot fill (host code) on the library's backends;
# test_gpu_batch_ahead writes RICE_1 files with CFITSIO for batch reads through the library;
# test_gpu_trim reads a b2nd array into device memory through the library.
foreach(t test_gpu_rice gpu_rice_bench test_gpu_devices test_gpu_slot_reads test_gpu_batch_ahead
           test_gpu_trim)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${t} PRIVATE tessera_static PkgConfig::CFITSIO)
  endif()
endforeach()
# The blosc filter pass test compares with the library's CPU blosc decoder.
if(TARGET test_gpu_bfilter)
  target_include_directories(test_gpu_bfilter PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(test_gpu_bfilter PRIVATE tessera_static PkgConfig::ZSTD)
endif()
if(TARGET test_gpu_devices AND TSR_CORPUS_DIR)
  set_tests_properties(test_gpu_devices PROPERTIES ENVIRONMENT "TSR_CORPUS=${TSR_CORPUS_DIR}")
endif()
