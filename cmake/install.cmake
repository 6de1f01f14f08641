# Installation: library, headers, tools, CMake package (rdsm::rdsm) and pkg-config file.
include(CMakePackageConfigHelpers)
install(TARGETS rdsm EXPORT rdsmTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/mpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/shmem.h include/shmem_generic.h include/shmem_collectives.h include/shmem16.h include/shmem_cxx.h
              include/shmemx.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/rdsm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(EXPORT rdsmTargets NAMESPACE rdsm:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rdsm)
configure_package_config_file(cmake/rdsmConfig.cmake.in ${PROJECT_BINARY_DIR}/rdsmConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rdsm)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rdsmConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rdsmConfig.cmake ${PROJECT_BINARY_DIR}/rdsmConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rdsm)
# The .pc file locates the prefix from its own place, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH RDSM_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/rdsm.pc.in ${PROJECT_BINARY_DIR}/rdsm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rdsm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
