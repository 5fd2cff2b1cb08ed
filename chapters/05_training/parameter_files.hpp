/// \file parameter_files.hpp
/// \brief Chapter 05's parameters on disk: the six matrices of the one-head classifier as plain
/// text (--save, --init), whole or not at all, and the loss log (--loss-log).
///
/// Throws: app::IoError (exit 1) with the system's reason if the folder or a file cannot be written
/// (save_model, write_loss_log); std::invalid_argument naming the file if one is missing, unreadable,
/// not a regular file, too large, ragged, not numeric, beyond +-1e6 (attn::kLargestInput) or of the
/// wrong shape, or if the folder's manifest.txt does not match the files (load_model); model_files
/// throws nothing beyond std::bad_alloc.
/// Sources: the article's trained model, kept for later chapters, and its loss curve ("Make it
/// learn"); no paper: Armadillo's raw_ascii format and the parameter table attn::kOneHeadGroups.
#pragma once

#include <armadillo>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "training.hpp"

namespace ch05 {

/// Writes E.txt, Wq.txt, Wk.txt, Wv.txt, Wc.txt and bc.txt into `dir` (created if needed) in
/// Armadillo's plain-text matrix format (raw_ascii: one row per line, entries separated by spaces),
/// each entry with 17 significant digits so that reading it back is exact. The six files are
/// written as a set (app::AtomicFile::commit_all): all in full under temporary names, then renamed,
/// with a manifest.txt of their sizes and checksums renamed first.
void save_model(const attn::OneHeadModel& model, const std::filesystem::path& dir);

/// The six paths save_model writes in `dir`, one per parameter group: E.txt .. bc.txt.
std::vector<std::filesystem::path> model_files(const std::filesystem::path& dir);

/// Reads the six files written by save_model (bc.txt may hold its C values on one line or one per
/// line). d is taken from E.txt's width; E.txt must have `vocab` rows, Wq/Wk/Wv must be d x d,
/// Wc d x `classes`. Each file must be a regular file of at most app::kMaxInputFileBytes (1 MiB),
/// checked before reading; entries follow the number rule of common/apparatus/numbers.hpp. The
/// folder's manifest.txt, when there is one, must match the files (a torn or mixed set, or a file
/// edited by hand: delete manifest.txt to read edited files as they are). The inverse of save_model.
attn::OneHeadModel load_model(const std::filesystem::path& dir, arma::uword vocab, arma::uword classes);

/// Writes one line per pass: the pass's mean loss with 17 significant digits ("6.2429412345678901e-01"),
/// atomically (the whole file or, on failure, none). pass_loss: passes x 1.
void write_loss_log(const arma::vec& pass_loss, const std::filesystem::path& file);

}  // namespace ch05
