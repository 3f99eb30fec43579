# The installable library, on top of the static ratelab_algos target:
# the generated ratelab/version.h and a shared library built from the same sources (libratelab.so.MAJOR). Both
# libraries are named "ratelab" on disk.
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/include/ratelab/version.h.in
               ${CMAKE_CURRENT_BINARY_DIR}/include/ratelab/version.h @ONLY)
target_include_directories(ratelab_algos PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/include)
set_target_properties(ratelab_algos PROPERTIES OUTPUT_NAME ratelab)

get_target_property(RL_LIB_SOURCES ratelab_algos SOURCES)
add_library(ratelab_shared SHARED ${RL_LIB_SOURCES})
target_include_directories(ratelab_shared PRIVATE $<TARGET_PROPERTY:ratelab_algos,INCLUDE_DIRECTORIES>)
target_compile_options(ratelab_shared PRIVATE $<TARGET_PROPERTY:ratelab_algos,COMPILE_OPTIONS>)
target_link_libraries(ratelab_shared PRIVATE $<TARGET_PROPERTY:ratelab_algos,LINK_LIBRARIES>)
set_target_properties(ratelab_shared PROPERTIES
  OUTPUT_NAME ratelab
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  C_VISIBILITY_PRESET default)
