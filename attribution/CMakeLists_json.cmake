# pp_attribution_json: the JSON writer/reader and the per-pass summary table, shared by the
# layer's sinks and the passprobe command. Included from attribution/CMakeLists.txt.
add_library(pp_attribution_json STATIC
  ${CMAKE_CURRENT_LIST_DIR}/attr_json.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_summary.c)
target_include_directories(pp_attribution_json PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(pp_attribution_json PUBLIC pp_core m)
