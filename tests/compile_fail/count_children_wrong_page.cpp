// expect: odm::count_children: the page must hold the referenced parents, or their ids
// The page is the parents (or their ids), not values of another type. The twin passes ids.
#include <odm/odm.hpp>

#include <string>
#include <vector>

namespace cf {
struct Host {
  odm::ObjectId id;
  std::string name;
};
struct LogMessage {
  odm::ObjectId id;
  odm::ParentRef<Host> host;
};
}  // namespace cf

#ifdef ODM_COMPILE_FAIL
using Page = std::vector<std::string>;
#else
using Page = std::vector<odm::ObjectId>;
#endif

int count(const odm::Database& db, const Page& page) {
  return static_cast<int>(odm::count_children(db, page, &cf::LogMessage::host).size());
}

int main() { return 0; }
