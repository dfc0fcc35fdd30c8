# pp_attribution_sink: the output sinks (report.json, trace.json, passes.csv, the stderr
# summary), their writer thread and the per-pass statistics. API-neutral. Included from
# attribution/CMakeLists.txt.
add_library(pp_attribution_sink STATIC
  ${CMAKE_CURRENT_LIST_DIR}/attr_model.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_stats.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_sink.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_report.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_trace.c
  ${CMAKE_CURRENT_LIST_DIR}/attr_csv.c)
target_include_directories(pp_attribution_sink PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(pp_attribution_sink PUBLIC pp_attribution_json pp_core Threads::Threads m)
