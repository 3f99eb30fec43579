# Install rules: `cmake --install build --prefix P` (or `make install
# PREFIX=P`) puts the headers under P/include/ratelab/, libratelab.a and
# libratelab.so.* under P/LIBDIR, P/LIBDIR/pkgconfig/ratelab.pc, the CMake
# package P/LIBDIR/cmake/ratelab/ (find_package(ratelab CONFIG), imported
# targets ratelab::ratelab and ratelab::ratelab_static), P/bin/ratelab and
# the simulator's scenarios under P/share/ratelab/scenarios/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/algos/include/ratelab
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/algos/include/ratelab/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ratelab)
install(TARGETS ratelab_algos ratelab_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
install(TARGETS ratelab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The simulator's default scenario set, where an installed `ratelab sim` looks for it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/ratelab)

# ratelab.pc finds its prefix from its own location (${pcfiledir}), so an
# install with --prefix given at install time is right too.
file(RELATIVE_PATH RL_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" RL_PC_TO_PREFIX "${RL_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ratelab.pc.in ${PROJECT_BINARY_DIR}/ratelab.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ratelab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CMake package finds its prefix from its own location, so the tree can move.
set(RL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ratelab)
file(RELATIVE_PATH RL_CMAKE_TO_PREFIX /prefix/${RL_CMAKE_DIR} /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ratelabConfig.cmake.in
               ${PROJECT_BINARY_DIR}/ratelabConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ratelabConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ratelabConfig.cmake
              ${PROJECT_BINARY_DIR}/ratelabConfigVersion.cmake
        DESTINATION ${RL_CMAKE_DIR})

# The Redis backend, when hiredis was found: libratelab_redis.a,
# ratelab-redis.pc (Requires: ratelab hiredis) and the imported target
# ratelab::redis of the CMake package (ratelabRedis.cmake, which
# ratelabConfig.cmake includes when it is there).
if(RL_HAVE_HIREDIS)
  install(TARGETS ratelab_redis ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/algos/redis/include/ratelab
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ratelab-redis.pc.in
                 ${PROJECT_BINARY_DIR}/ratelab-redis.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ratelab-redis.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ratelabRedis.cmake.in
                 ${PROJECT_BINARY_DIR}/ratelabRedis.cmake @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ratelabRedis.cmake DESTINATION ${RL_CMAKE_DIR})
endif()
