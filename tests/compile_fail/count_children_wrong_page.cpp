// expect: odm::count_children: the page must hold the referenced parents, or their ids
// The page is the parents (or their ids), not documents of another model.
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

int count(const odm::Database& db, const std::vector<std::string>& names) {
  return static_cast<int>(odm::count_children(db, names, &cf::LogMessage::host).size());
}

int main() { return 0; }
