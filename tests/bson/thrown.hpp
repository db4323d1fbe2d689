#pragma once
// Capturing a typed odm error, to look at its path(), depth() and reason().

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <utility>

namespace odm_test {

/// The E that `fn` throws; a test failure (and a placeholder E) if it throws nothing or
/// something else.
template <class E, class Fn>
E thrown(Fn&& fn) {
  try {
    std::invoke(std::forward<Fn>(fn));
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
    return E("<wrong>");
  }
  ADD_FAILURE() << "no exception thrown";
  return E("<none>");
}

}  // namespace odm_test
