# imsb_folder_library(target [deps...]): the static library of a top-level folder (qmgr/, tpipe/,
# imsemu/ ...) from its src/*.cpp, with its include/ folder public. A folder with no sources yet gets an
# interface target, so that the dependency graph stays valid while it is being written.
function(imsb_folder_library target)
  file(GLOB _srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp")
  if(NOT _srcs)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include")
    target_link_libraries(${target} INTERFACE ${ARGN})
    return()
  endif()
  add_library(${target} STATIC ${_srcs})
  target_include_directories(${target} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include")
  target_link_libraries(${target} PRIVATE imsb_warnings PUBLIC ${ARGN})
endfunction()
