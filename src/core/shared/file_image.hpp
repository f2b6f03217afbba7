// The image of an object's file: its bytes as a copy of the file would hold
// them, kept in the catalog so that a dump carries the object and a missing
// file can be written again from it (the PG face: shared_images.cpp).
//
// An image is a file in the format of shared_file.hpp, its header clean: the
// immutable part as the file has it (same file_id), the flags kept only for
// kFrozen, the op count folded into `ops`, the item class, and no lock words,
// reader slots, item stripes or server run. Whatever the payload holds (a
// kind's own layout, sub-filters a kind grows into) is carried byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "shared/shared_file.hpp"

namespace sketch {
namespace shared {

// The bytes of m's image: the size of its file.
inline uint64_t image_bytes(const Mapping& m) { return m.size; }

// Writes m's image into out (image_bytes(m) of them). The caller holds what
// makes the state a point in time: the exclusive lock, or a frozen object.
// Never throws.
void write_image(const Mapping& m, uint8_t* out) noexcept;

// Validates an image of len bytes as attach_file validates a file (magic,
// format version, checksum, kind, geometry, size) and checks that it is an
// image of incarnation file_id of a `kind` object (`label` names it in
// errors). Returns its header; throws a corrupted Error otherwise.
FileHeader check_image(const uint8_t* image, uint64_t len, const char* label, uint32_t kind, uint64_t file_id);

// Writes a checked image (check_image) as the file at path, created as
// create_file creates a file (no file may be at the path), written by
// server run `run`; durable: fsynced. stop (may be null) is polled between
// 2 MiB pieces, as a create polls it (CreateSpec::stop). Throws as
// create_file.
void restore_image(const std::string& path, const char* label, const uint8_t* image, uint64_t len, uint64_t run,
                   bool durable, bool (*stop)() = nullptr);

// True while path is an unfinished file whose creator is still writing it
// (see create_file): another process restoring the same image. Never throws.
bool being_created(const std::string& path) noexcept;

}  // namespace shared
}  // namespace sketch
