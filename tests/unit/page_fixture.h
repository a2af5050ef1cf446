// A page state as a fresh page opens it, for the tests of the page's logic (web/state).
#pragma once
#include <doctest/doctest.h>

#include "app_state.h"

namespace autopar::test {

// The state a fresh page starts with (its defaults loaded); the test stops if they do not load.
inline web::AppState fresh_page_state() {
  web::AppState state;
  REQUIRE(web::init_app_state(state).ok());
  return state;
}

}  // namespace autopar::test
