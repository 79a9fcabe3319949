# install.cmake - `cmake --install` (and `make install PREFIX=...`): the shared and static
# libraries, tessera.h, the CLI, tessera.pc (pkg-config) and the CMake package
# (find_package(tessera) -> tessera::tessera, tessera::tessera_static).
#
# Both the .pc file and the package locate the prefix from where they are installed, so an
# install moved or made with `cmake --install --prefix P` still points at itself.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libtessera.so and libtessera.a (the static target keeps its name inside this build).
set_target_properties(tessera_static PROPERTIES OUTPUT_NAME tessera)
set_target_properties(tessera PROPERTIES EXPORT_NAME tessera)
set_target_properties(tessera_static PROPERTIES EXPORT_NAME tessera_static)

set(_tsr_targets tessera tessera_static)
if(TARGET tessera_cuda)
  # libtessera.a's CUDA kernels live in their own archive; static users link it too.
  list(APPEND _tsr_targets tessera_cuda)
endif()
install(TARGETS ${_tsr_targets} EXPORT tesseraTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tessera_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tessera.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TSR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${TSR_CMAKE_DIR})
set(TSR_CONFIG_CUDA ${TSR_CUDA_ENABLED})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tesseraConfig.cmake INSTALL_DESTINATION ${TSR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
        ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake DESTINATION ${TSR_CMAKE_DIR})

# tessera.pc: prefix = the .pc file's folder, as many levels up as the libdir is deep, so a
# moved install still points at itself; where the libdir or includedir is absolute (Spack,
# Nix and conda pass them so), the install's own full paths.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TSR_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(TSR_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(TSR_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  set(TSR_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" _tsr_parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(_p ${_tsr_parts})
    string(APPEND TSR_PC_PREFIX "/..")
  endforeach()
  set(TSR_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(TSR_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# What a static link needs beyond libtessera.a (Libs.private), the CUDA runtime when built
# with CUDA. The libraries are named directly, not as Requires.private modules: `pkg-config
# --static` would then ask for their own static dependencies too (Debian's cfitsio.pc names
# libcurl), where a static libtessera links the shared libraries these packages install.
set(_tsr_libs "")
foreach(_l ${DEFLATE_LIBRARIES} ${CFITSIO_LIBRARIES} ${ZSTD_LIBRARIES} ${LZ4_LIBRARIES}
        ${LZMA_LIBRARIES} ${CJSON_LIBRARIES} ${MSGPACK_LIBRARIES} bz2 pthread ${CMAKE_DL_LIBS} m)
  list(APPEND _tsr_libs "-l${_l}")
endforeach()
list(REMOVE_DUPLICATES _tsr_libs) # (a module may name pthread or m itself)
list(JOIN _tsr_libs " " TSR_PC_LIBS_PRIVATE)
if(TSR_CUDA_ENABLED)
  # the kernels' archive, then the static CUDA runtime (and what it needs) and nvcc's C++
  set(TSR_PC_LIBS_PRIVATE "-ltessera_cuda -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lrt ${TSR_PC_LIBS_PRIVATE} -lstdc++")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${PROJECT_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# nvcc's host code needs the C++ runtime (static-local guards, exception personality); inside
# this build CMake links it as CUDA's implicit library, a consumer of the installed package
# that does not enable CUDA must be told.
if(TARGET tessera_cuda)
  target_link_libraries(tessera_cuda INTERFACE $<INSTALL_INTERFACE:stdc++>)
endif()
