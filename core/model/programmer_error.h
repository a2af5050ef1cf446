// Programmer errors, apart from user errors: a user's mistake (a bad model, an impossible plan)
// is an Error returned to the caller (result.h); a broken invariant of the code itself (reading a
// Result's wrong side, an index out of its table) stops the program at once, saying where, natively
// on stderr and in the page on the browser's console (Emscripten routes stderr there).
#pragma once

namespace autopar {

// Prints "autopar: programmer error at FILE:LINE: WHAT" and aborts. Never for a user's input.
[[noreturn]] void programmer_error(const char* file, int line, const char* what);

}  // namespace autopar

// Stops at a programmer's error when `cond` is false (kept in release builds: the checks are cheap
// and a wrong number is worse than a stop).
#define AUTOPAR_ASSERT(cond, what) ((cond) ? (void)0 : ::autopar::programmer_error(__FILE__, __LINE__, what))
