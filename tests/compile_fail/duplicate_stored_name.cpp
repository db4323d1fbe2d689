// expect: odm: two members of this struct are stored under the same field name
// `title` is renamed to "name", which another member already uses: documents could not
// say which member a field belongs to. Everything else in this file is valid: built
// with -DODM_COMPILE_FAIL_VALID_ONLY (which renames to "book_title") it compiles.

#include <odm/odm.hpp>

#include <string>

struct Book {
  std::string id;
  std::string name;
  std::string title;
  struct odm_model {
#ifndef ODM_COMPILE_FAIL_VALID_ONLY
    static constexpr auto fields = odm::fields(odm::rename(&Book::title, "name"));
#else
    static constexpr auto fields = odm::fields(odm::rename(&Book::title, "book_title"));
#endif
  };
};

odm::Document store(const Book& book) { return odm::to_bson(book); }
