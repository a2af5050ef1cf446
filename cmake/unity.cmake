# Sources that unity builds (AUTOPAR_UNITY, CMakeLists.txt) compile alone: each defines a private
# name (a static function, or one in an anonymous namespace) that another file of its batch also
# defines, or must come first in its translation unit. Add a file here when a unity build fails
# with a redefinition or an ambiguous call that the file alone compiles without.
set(AUTOPAR_UNITY_ALONE
  core/alpa/stage_cost_builder.cpp         # kInf
  core/operations/engine_export.cpp        # chosen, py_str
  core/operations/schedule_view.cpp        # max_of (also schedule_operation.cpp)
  tests/unit/dist_opt_experts_test.cpp     # kLlama, kMixtral (also context_expert_test.cpp)
  tests/unit/hf_config_test.cpp            # test helpers of the same names
  tests/unit/hf_families_test.cpp
  tests/unit/inter_op_search_test.cpp
  tests/unit/knob_search_test.cpp          # lat (a table in another test of its batch is a function)
  tests/unit/operations_test.cpp           # model(), and AccuracyJob from two using-directives
  tests/unit/main.cpp                      # defines DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN before doctest.h
)
foreach(f ${AUTOPAR_UNITY_ALONE})
  set_source_files_properties(${CMAKE_SOURCE_DIR}/${f} DIRECTORY ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/web PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endforeach()
