# Cross-compiles rdsm for 64-bit ARM (aarch64) with Debian's cross toolchain (g++-aarch64-linux-gnu) against
# the arm64 multiarch libraries (libucx-dev:arm64, libpmix-dev:arm64, libgtest-dev:arm64).
# scripts/build-aarch64.sh installs them and uses this file. Test programs run under qemu-aarch64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# No binfmt registration is assumed: programs are started as `qemu-aarch64 <program>`, which finds the
# arm64 loader and libraries of the multiarch packages by itself.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# pkg-config must describe the arm64 packages, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
