// expect: odm::ChildrenOptions::sort_by: the sort is over another model than the children
// The order of a parent's children is a sort over the children's model, not the parent's.
#include <odm/odm.hpp>

#include <chrono>
#include <string>

namespace cf {
struct Host {
  odm::ObjectId id;
  std::string name;
};
struct LogMessage {
  odm::ObjectId id;
  std::chrono::sys_time<std::chrono::milliseconds> time;
  odm::ParentRef<Host> host;
};
}  // namespace cf

int main() {
  odm::ChildrenOptions<cf::LogMessage> newest;
  newest.sort_by(odm::sort(odm::desc(&cf::Host::name)));
  return 0;
}
