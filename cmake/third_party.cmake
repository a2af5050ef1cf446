# Static libraries built from the third-party sources that scripts/setup.sh unpacks into
# third_party/ (git-ignored, never committed): Dear ImGui 1.86, with its GLFW and OpenGL 3
# backends in the WebAssembly build, and GLPK 5.0 there. A native build compiles Dear ImGui
# alone (no window: the panels test draws into ImDrawData) and links the system's -lglpk.
# Third-party code is compiled with -O2 and without warnings: it is not ours to fix, and its
# objects are cached in the build tree between builds.

include_guard(GLOBAL)

set(AUTOPAR_THIRD_PARTY_DIR ${CMAKE_SOURCE_DIR}/third_party)

# --- Dear ImGui (MIT), with imgui_stdlib (std::string text inputs) ----------------------------
# Not imgui_demo.cpp: nothing calls its demo window.
set(AUTOPAR_IMGUI_DIR ${AUTOPAR_THIRD_PARTY_DIR}/imgui)
if(NOT EXISTS ${AUTOPAR_IMGUI_DIR}/imgui.cpp)
  if(EMSCRIPTEN)
    message(FATAL_ERROR "Dear ImGui sources not found in ${AUTOPAR_IMGUI_DIR}: run scripts/setup.sh")
  endif()
  message(STATUS "Dear ImGui sources not found in ${AUTOPAR_IMGUI_DIR} (scripts/setup.sh): no native panels test")
  return()
endif()
add_library(imgui STATIC
  ${AUTOPAR_IMGUI_DIR}/imgui.cpp
  ${AUTOPAR_IMGUI_DIR}/imgui_draw.cpp
  ${AUTOPAR_IMGUI_DIR}/imgui_tables.cpp
  ${AUTOPAR_IMGUI_DIR}/imgui_widgets.cpp
  ${AUTOPAR_IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp)
target_include_directories(imgui SYSTEM PUBLIC ${AUTOPAR_IMGUI_DIR} ${AUTOPAR_IMGUI_DIR}/misc/cpp)
target_compile_options(imgui PRIVATE -O2 -w)
set_target_properties(imgui PROPERTIES UNITY_BUILD OFF)   # third-party sources: each file alone
if(NOT EMSCRIPTEN)
  return()
endif()
# The page's window: GLFW/glfw3.h and GLES3/gl3.h come with Emscripten's system headers; the app
# links -sUSE_GLFW=3 -sUSE_WEBGL2=1.
add_library(imgui_glfw_gl3 STATIC
  ${AUTOPAR_IMGUI_DIR}/backends/imgui_impl_glfw.cpp
  ${AUTOPAR_IMGUI_DIR}/backends/imgui_impl_opengl3.cpp)
target_include_directories(imgui_glfw_gl3 SYSTEM PUBLIC ${AUTOPAR_IMGUI_DIR}/backends)
target_link_libraries(imgui_glfw_gl3 PUBLIC imgui)
target_compile_options(imgui_glfw_gl3 PRIVATE -O2 -w)
set_target_properties(imgui_glfw_gl3 PROPERTIES UNITY_BUILD OFF)

# --- GLPK 5.0 (GPL-3.0) -------------------------------------------------------------------------
set(AUTOPAR_GLPK_DIR ${AUTOPAR_THIRD_PARTY_DIR}/glpk/src)
if(NOT EXISTS ${AUTOPAR_GLPK_DIR}/glpk.h)
  message(FATAL_ERROR "GLPK sources not found in ${AUTOPAR_GLPK_DIR}: run scripts/setup.sh")
endif()
file(GLOB_RECURSE AUTOPAR_GLPK_SOURCES CONFIGURE_DEPENDS ${AUTOPAR_GLPK_DIR}/*.c)
# GLPK's sources include <config.h>. Emscripten has <sys/time.h> and gettimeofday: without them
# GLPK's clock (glp_time, read throughout every solve for its time limit) falls back to time()
# and gmtime(), a call out to JavaScript that took a tenth of the planner's time in the page.
set(AUTOPAR_GLPK_CONFIG_DIR ${CMAKE_BINARY_DIR}/glpk-config)
file(CONFIGURE OUTPUT ${AUTOPAR_GLPK_CONFIG_DIR}/config.h CONTENT
     "/* GLPK built for WebAssembly by cmake/third_party.cmake */\n#define HAVE_SYS_TIME_H 1\n#define HAVE_GETTIMEOFDAY 1\n")
file(GLOB AUTOPAR_GLPK_SUBDIRS LIST_DIRECTORIES true ${AUTOPAR_GLPK_DIR}/*)
list(FILTER AUTOPAR_GLPK_SUBDIRS EXCLUDE REGEX "\\.[ch]$")
add_library(glpk STATIC ${AUTOPAR_GLPK_SOURCES})
target_include_directories(glpk PRIVATE ${AUTOPAR_GLPK_CONFIG_DIR} ${AUTOPAR_GLPK_SUBDIRS})
# Users see only the public API header, glpk.h.
target_include_directories(glpk SYSTEM PUBLIC ${AUTOPAR_GLPK_DIR})
target_compile_definitions(glpk PRIVATE HAVE_CONFIG_H)
target_compile_options(glpk PRIVATE -O2 -w)
set_target_properties(glpk PROPERTIES UNITY_BUILD OFF)
