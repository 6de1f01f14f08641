# Debian package (CPack): `cpack -G DEB` in the build tree, or scripts/package.sh -> build/rdsm_<version>_<arch>.deb.
# Installs under /usr; Depends comes from dpkg-shlibdeps on the binaries (libucx0, libpmix2, libc6, libstdc++6...)
# plus the compilers the wrappers run and python3 for rdsm-bench.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rdsm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "rdsm")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenSHMEM 1.5 and distributed shared memory over UCX")
set(CPACK_PACKAGE_DESCRIPTION
    "rdsm gives a group of processes one partitioned global address space carried by RDMA through UCX: the\n"
    "OpenSHMEM 1.5 C API and a typed C++ API over a symmetric heap, and a page-based coherent distributed\n"
    "shared memory. Includes the compiler wrappers rdsmcc and rdsmc++ (with oshcc, oshc++, oshCC and oshrun in\n"
    "/usr/libexec/rdsm/osh), the launcher rdsmrun, rdsm-info and rdsm-bench. Jobs also start under\n"
    "srun --mpi=pmix and mpirun (PMIx).")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the build is RelWithDebInfo; the package ships without the debug information
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rdsm developers <rdsm@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# librdsm.so ships in this package: dpkg-shlibdeps must find it in the staging tree, not ask for a package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler, g++ | c++-compiler, python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, openmpi-bin, gnuplot-nox")
include(CPack)
