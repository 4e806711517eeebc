#include "cudalab/errors.hpp"

#include <new>
#include <system_error>

namespace cudalab {

namespace {

/// A bug's line: what broke, whose it is, and what to do.
std::string internal_line(const std::string& what) {
  return "internal error: " + what +
         " (a bug in cudalab, not in your code or your machine: please report it with the command that "
         "printed this line)";
}

}  // namespace

ErrorReport report_error(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    if (e.exit_code() == ExitCode::internal) return {internal_line(e.what()), ExitCode::internal};
    return {e.what(), e.exit_code()};
  } catch (const std::system_error& e) {  // std::filesystem::filesystem_error too: the machine refused
    return {e.what(), ExitCode::not_run};
  } catch (const std::bad_alloc&) {
    return {"out of memory: free some, or check fewer sizes or exercises at once", ExitCode::not_run};
  } catch (const std::exception& e) {
    return {internal_line(e.what()), ExitCode::internal};
  } catch (...) {
    return {internal_line("an exception that is not a std::exception"), ExitCode::internal};
  }
}

}  // namespace cudalab
