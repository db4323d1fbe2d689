// expect: odm::ChildrenOptions::sort_by: the sort is over another model than the children
// The order of a parent's children is a sort over the children's model, not the parent's.
#include "models.hpp"

int main() {
  odm::ChildrenOptions<cf::LogMessage> newest;
#ifdef ODM_COMPILE_FAIL
  newest.sort_by(odm::sort(odm::desc(&cf::Host::name)));
#else
  newest.sort_by(odm::sort(odm::desc(&cf::LogMessage::time)));
#endif
}
