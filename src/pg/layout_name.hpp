// The face's one way of naming a filter layout (Bloom or counting): the name
// format_layout gives (found by argument-dependent lookup), copied into a
// buffer, so that no C++ string is alive when an error is raised after; "?"
// when it cannot be formatted. The buffer lives as long as the expression
// that holds it (layout_name(l).text in an ereport's arguments).
#pragma once

#include <string>

#include "pg.hpp"

namespace sketch_pg {

struct LayoutName {
    char text[96];
};

template <typename Layout>
LayoutName layout_name(const Layout& l) noexcept {
    LayoutName n;
    try {
        strlcpy(n.text, format_layout(l).c_str(), sizeof n.text);
    } catch (...) {
        strlcpy(n.text, "?", sizeof n.text);
    }
    return n;
}

// A name formatted already (a description's).
inline LayoutName layout_name(const std::string& name) noexcept {
    LayoutName n;
    strlcpy(n.text, name.c_str(), sizeof n.text);
    return n;
}

}  // namespace sketch_pg
