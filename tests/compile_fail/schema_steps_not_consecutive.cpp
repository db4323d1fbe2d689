// expect: odm::schema_versions<N>: the steps must go one version at a time
// A model at version 3 needs a step from 1 and one from 2: a gap would leave documents of
// version 2 unreadable.
#include <odm/evolution/versions.hpp>

namespace {
odm::Document same(const odm::Document& document) { return document; }
}  // namespace

int main() {
#ifdef ODM_COMPILE_FAIL
  constexpr auto schema = odm::schema_versions<3>(odm::upgrade<1>(&same));
#else
  constexpr auto schema = odm::schema_versions<3>(odm::upgrade<1>(&same), odm::upgrade<2>(&same));
#endif
  return schema.current == 3 ? 0 : 1;
}
