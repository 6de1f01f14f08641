// The aarch64 fault decoding (src/dsm/access_decode.cpp): instruction words from the GNU assembler against
// their expected access, the ESR record parser over synthetic signal frames, and on an arm64 build the words
// of the test binary's own instructions and real faults.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

#include "dsm/access_decode.hpp"

#if defined(__aarch64__)
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#endif

using rdsm::detail::dsm::aarch64_insn_access;
using rdsm::detail::dsm::esr_record_magic;
using rdsm::detail::dsm::esr_write_from_records;
using rdsm::detail::dsm::fpsimd_record_magic;
using rdsm::detail::dsm::mem_access;

namespace {

const char* name(mem_access a) {
  switch (a) {
    case mem_access::read:
      return "read";
    case mem_access::write:
      return "write";
    case mem_access::unknown:
      return "unknown";
  }
  return "?";
}

struct insn_case {
  const char* text;
  uint32_t word;
  mem_access expected;
};

constexpr mem_access read = mem_access::read;
constexpr mem_access write = mem_access::write;
constexpr mem_access unknown = mem_access::unknown;

// Words from `aarch64-linux-gnu-as -march=armv8.8-a+memtag+ls64+mops` (binutils 2.40), read back with
// objdump -d; checked against the Arm ARM's A64 "Loads and Stores" encoding index.
const insn_case insn_cases[] = {
    // Load/store exclusive, acquire/release, LORegion (the L bit) and CAS/CASP (writes).
    {"stxr w2, x1, [x0]", 0xc8027c01, write},
    {"ldxr x1, [x0]", 0xc85f7c01, read},
    {"ldaxr w1, [x0]", 0x885ffc01, read},
    {"stlxr w2, w1, [x0]", 0x8802fc01, write},
    {"stxrb w2, w1, [x0]", 0x08027c01, write},
    {"ldxrh w1, [x0]", 0x485f7c01, read},
    {"ldxp x1, x2, [x0]", 0xc87f0801, read},
    {"stxp w3, x1, x2, [x0]", 0xc8230801, write},
    {"ldaxp w1, w2, [x0]", 0x887f8801, read},
    {"stlxp w3, x1, x2, [x0]", 0xc8238801, write},
    {"ldar x1, [x0]", 0xc8dffc01, read},
    {"stlr w1, [x0]", 0x889ffc01, write},
    {"ldarb w1, [x0]", 0x08dffc01, read},
    {"stlrh w1, [x0]", 0x489ffc01, write},
    {"ldlar x1, [x0]", 0xc8df7c01, read},
    {"stllr x1, [x0]", 0xc89f7c01, write},
    {"cas x1, x2, [x0]", 0xc8a17c02, write},
    {"casa w1, w2, [x0]", 0x88e17c02, write},
    {"casal x1, x2, [x0]", 0xc8e1fc02, write},
    {"casb w1, w2, [x0]", 0x08a17c02, write},
    {"casah w1, w2, [x0]", 0x48e17c02, write},
    {"casp x2, x3, x4, x5, [x0]", 0x48227c04, write},
    {"caspal w2, w3, w4, w5, [x0]", 0x0862fc04, write},
    // Load register (literal) and PRFM (literal).
    {"ldr x1, .", 0x58000001, read},
    {"ldr w1, .", 0x18000001, read},
    {"ldrsw x1, .", 0x98000001, read},
    {"ldr q1, .", 0x9c000001, read},
    {"ldr d1, .", 0x5c000001, read},
    {"prfm pldl1keep, .", 0xd8000000, read},
    // Pairs and no-allocate pairs (L, bit 22); LDPSW; STGP (MTE) stores.
    {"stp x1, x2, [x0]", 0xa9000801, write},
    {"ldp x1, x2, [x0]", 0xa9400801, read},
    {"stp w1, w2, [x0, #8]!", 0x29810801, write},
    {"ldp w1, w2, [x0], #8", 0x28c10801, read},
    {"ldpsw x1, x2, [x0]", 0x69400801, read},
    {"stnp x1, x2, [x0]", 0xa8000801, write},
    {"ldnp q1, q2, [x0]", 0xac400801, read},
    {"stp q1, q2, [x0, #-32]!", 0xadbf0801, write},
    {"ldp d1, d2, [x0]", 0x6d400801, read},
    {"stnp s1, s2, [x0]", 0x2c000801, write},
    {"stgp x1, x2, [x0]", 0x69000801, write},
    // Load/store register, general registers: immediate, unscaled, post/pre-index, unprivileged, register offset.
    {"str x1, [x0]", 0xf9000001, write},
    {"ldr x1, [x0]", 0xf9400001, read},
    {"strb w1, [x0, #1]", 0x39000401, write},
    {"ldrb w1, [x0, #1]", 0x39400401, read},
    {"ldrsb x1, [x0]", 0x39800001, read},
    {"ldrsh w1, [x0]", 0x79c00001, read},
    {"ldrsw x1, [x0]", 0xb9800001, read},
    {"strh w1, [x0, #2]", 0x79000401, write},
    {"prfm pldl1keep, [x0]", 0xf9800000, read},
    {"stur x1, [x0, #-8]", 0xf81f8001, write},
    {"ldur w1, [x0, #-1]", 0xb85ff001, read},
    {"prfum pstl1keep, [x0, #-1]", 0xf89ff010, read},
    {"str x1, [x0], #8", 0xf8008401, write},
    {"ldr x1, [x0], #8", 0xf8408401, read},
    {"str w1, [x0, #4]!", 0xb8004c01, write},
    {"ldr w1, [x0, #4]!", 0xb8404c01, read},
    {"sttr x1, [x0]", 0xf8000801, write},
    {"ldtr x1, [x0]", 0xf8400801, read},
    {"ldtrsb w1, [x0]", 0x38c00801, read},
    {"str x1, [x0, x2]", 0xf8226801, write},
    {"ldr x1, [x0, x2, lsl #3]", 0xf8627801, read},
    {"strb w1, [x0, w2, uxtw]", 0x38224801, write},
    {"ldrsw x1, [x0, x2]", 0xb8a26801, read},
    {"prfm pldl1keep, [x0, x2]", 0xf8a26800, read},
    // Load/store register, SIMD&FP (V 1): bit 22 clear stores.
    {"str q1, [x0]", 0x3d800001, write},
    {"ldr q1, [x0]", 0x3dc00001, read},
    {"str d1, [x0, #8]", 0xfd000401, write},
    {"ldr s1, [x0, #4]", 0xbd400401, read},
    {"str b1, [x0]", 0x3d000001, write},
    {"ldr h1, [x0]", 0x7d400001, read},
    {"stur q1, [x0, #-16]", 0x3c9f0001, write},
    {"ldur d1, [x0, #-8]", 0xfc5f8001, read},
    {"str q1, [x0], #16", 0x3c810401, write},
    {"ldr q1, [x0, #16]!", 0x3cc10c01, read},
    {"str d1, [x0, x2]", 0xfc226801, write},
    {"ldr q1, [x0, x2]", 0x3ce26801, read},
    // Atomic memory operations and their ST* aliases; LDAPR.
    {"ldadd x1, x2, [x0]", 0xf8210002, write},
    {"ldaddal w1, w2, [x0]", 0xb8e10002, write},
    {"ldclr x1, x2, [x0]", 0xf8211002, write},
    {"ldeorb w1, w2, [x0]", 0x38212002, write},
    {"ldset x1, x2, [x0]", 0xf8213002, write},
    {"ldsmax x1, x2, [x0]", 0xf8214002, write},
    {"ldsmin w1, w2, [x0]", 0xb8215002, write},
    {"ldumax x1, x2, [x0]", 0xf8216002, write},
    {"lduminh w1, w2, [x0]", 0x78217002, write},
    {"swp x1, x2, [x0]", 0xf8218002, write},
    {"swpal w1, w2, [x0]", 0xb8e18002, write},
    {"stadd x1, [x0]", 0xf821001f, write},
    {"stclr w1, [x0]", 0xb821101f, write},
    {"steor x1, [x0]", 0xf821201f, write},
    {"stset x1, [x0]", 0xf821301f, write},
    {"stsmax w1, [x0]", 0xb821401f, write},
    {"stumin x1, [x0]", 0xf821701f, write},
    {"ldapr x1, [x0]", 0xf8bfc001, read},
    {"ldaprb w1, [x0]", 0x38bfc001, read},
    // LDRAA/LDRAB (pointer authentication).
    {"ldraa x1, [x0]", 0xf8200401, read},
    {"ldrab x1, [x0, #8]!", 0xf8a01c01, read},
    // RCpc unscaled immediate.
    {"stlur x1, [x0, #-8]", 0xd91f8001, write},
    {"stlurb w1, [x0]", 0x19000001, write},
    {"stlurh w1, [x0, #2]", 0x59002001, write},
    {"ldapur x1, [x0, #8]", 0xd9408001, read},
    {"ldapurb w1, [x0]", 0x19400001, read},
    {"ldapursw x1, [x0]", 0x99800001, read},
    {"ldapursh w1, [x0]", 0x59c00001, read},
    // SIMD load/store multiple and single structure (L bit).
    {"st1 {v0.16b}, [x0]", 0x4c007000, write},
    {"ld1 {v0.16b}, [x0]", 0x4c407000, read},
    {"st1 {v0.4s, v1.4s}, [x0], #32", 0x4c9fa800, write},
    {"ld4 {v0.4s-v3.4s}, [x0], x2", 0x4cc20800, read},
    {"st1 {v0.s}[1], [x0]", 0x0d009000, write},
    {"ld1 {v0.s}[1], [x0]", 0x0d409000, read},
    {"ld1r {v0.4s}, [x0]", 0x4d40c800, read},
    {"st2 {v0.d, v1.d}[1], [x0], #16", 0x4dbf8400, write},
    {"ld3 {v0.b-v2.b}[3], [x0], x2", 0x0dc22c00, read},
    // MTE tag instructions: the STG family writes, LDG and LDGM read.
    {"stg x1, [x0]", 0xd9200801, write},
    {"stg x1, [x0, #16]!", 0xd9201c01, write},
    {"stzg x1, [x0], #16", 0xd9601401, write},
    {"st2g x1, [x0]", 0xd9a00801, write},
    {"stz2g x1, [x0]", 0xd9e00801, write},
    {"ldg x1, [x0]", 0xd9600001, read},
    {"stgm x1, [x0]", 0xd9a00001, write},
    {"stzgm x1, [x0]", 0xd9200001, write},
    {"ldgm x1, [x0]", 0xd9e00001, read},
    // DC ZVA (memset) and the MTE tag-zeroing DC ops write; other DC maintenance operations read.
    {"dc zva, x0", 0xd50b7420, write},
    {"sys #3, c7, c4, #1, x0", 0xd50b7420, write},
    {"dc civac, x0", 0xd50b7e20, read},
    {"dc cvac, x0", 0xd50b7a20, read},
    {"dc cvau, x0", 0xd50b7b20, read},
    {"dc cvap, x0", 0xd50b7c20, read},
    {"dc cvadp, x0", 0xd50b7d20, read},
    {"dc ivac, x0", 0xd5087620, read},
    {"dc gva, x0", 0xd50b7460, write},
    {"dc gzva, x0", 0xd50b7480, write},
    // Not memory accesses, or not classified (FEAT_MOPS both reads and writes). FEAT_LS64 is classified.
    {"add x0, x1, x2", 0x8b020020, unknown},
    {"nop", 0xd503201f, unknown},
    {"ic ivau, x0", 0xd50b7520, unknown},
    {"ret", 0xd65f03c0, unknown},
    {"b .", 0x14000000, unknown},
    {"mrs x0, dczid_el0", 0xd53b00e0, unknown},
    {"ld64b x0, [x1]", 0xf83fd020, read},
    {"st64b x0, [x1]", 0xf83f9020, write},
    {"st64bv x2, x0, [x1]", 0xf822b020, write},
    {"st64bv0 x2, x0, [x1]", 0xf822a020, write},
    {"cpyfp [x0]!, [x1]!, x2!", 0x19010440, unknown},
    {"setp [x0]!, x1!, x2", 0x19c20420, unknown},
};

TEST(AccessDecode, EveryClassOfTheAssemblersWords) {
  for (const insn_case& c : insn_cases)
    EXPECT_STREQ(name(aarch64_insn_access(c.word)), name(c.expected))
        << c.text << " (0x" << std::hex << c.word << ")";
}

// CASP has o2 (bit 23) clear, like LDXP/STXP: only size (bit 31) tells them apart, and CASPA's acquire bit
// is the L bit an exclusive load would have.
TEST(AccessDecode, CaspIsAWriteThoughItsLBitIsSet) {
  EXPECT_EQ(aarch64_insn_access(0x4862fc04), write) << "caspal x2, x3, x4, x5, [x0]";
  EXPECT_EQ(aarch64_insn_access(0xc87f0801), read) << "ldxp x1, x2, [x0]";
}

// ESR values: EC (31:26), IL (25), ISS: CM (8), WnR (6), DFSC 0b001111 (permission fault, level 3).
constexpr uint64_t esr_of(uint64_t ec, bool wnr, bool cm = false) {
  return ec << 26 | uint64_t{1} << 25 | uint64_t{cm} << 8 | uint64_t{wnr} << 6 | 0x0f;
}

// A __reserved area (4096 bytes, as in the kernel's sigcontext) built record by record.
class frame {
 public:
  frame() : bytes_(4096, 0) {}
  frame& record(uint32_t magic, uint32_t size) {
    put32(at_, magic);
    put32(at_ + 4, size);
    last_ = at_;
    at_ += size;
    return *this;
  }
  frame& esr(uint64_t value) {
    record(esr_record_magic, 16);
    std::memcpy(bytes_.data() + last_ + 8, &value, 8);
    return *this;
  }
  frame& fpsimd() { return record(fpsimd_record_magic, 528); }
  // Places the next record at byte `offset` (after a record whose size field lies).
  frame& at(size_t offset) {
    at_ = offset;
    return *this;
  }
  const unsigned char* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  void put32(size_t at, uint32_t v) { std::memcpy(bytes_.data() + at, &v, 4); }

 private:
  std::vector<unsigned char> bytes_;
  size_t at_ = 0;
  size_t last_ = 0;
};

std::optional<bool> parse(const frame& f) { return esr_write_from_records(f.data(), f.size()); }

TEST(AccessDecodeEsr, ADataAbortGivesWnR) {
  EXPECT_EQ(parse(frame().esr(esr_of(0x24, true))), std::optional<bool>(true)) << "lower EL, write";
  EXPECT_EQ(parse(frame().esr(esr_of(0x24, false))), std::optional<bool>(false)) << "lower EL, read";
  EXPECT_EQ(parse(frame().esr(esr_of(0x25, true))), std::optional<bool>(true)) << "same EL, write";
}

TEST(AccessDecodeEsr, ACacheMaintenanceAbortIsARead) {
  EXPECT_EQ(parse(frame().esr(esr_of(0x24, true, true))), std::optional<bool>(false));
}

TEST(AccessDecodeEsr, NoRecordGivesNothing) {
  EXPECT_EQ(parse(frame()), std::nullopt) << "only the end record";
  EXPECT_EQ(parse(frame().fpsimd()), std::nullopt) << "FPSIMD and the end";
}

TEST(AccessDecodeEsr, TheRecordIsFoundAfterOthers) {
  EXPECT_EQ(parse(frame().fpsimd().esr(esr_of(0x24, true))), std::optional<bool>(true));
  EXPECT_EQ(parse(frame().fpsimd().record(0x12345678, 32).esr(esr_of(0x24, false))), std::optional<bool>(false));
}

TEST(AccessDecodeEsr, AnEsrThatIsNotADataAbortGivesNothing) {
  EXPECT_EQ(parse(frame().esr(esr_of(0x20, true))), std::nullopt) << "instruction abort";
  EXPECT_EQ(parse(frame().esr(esr_of(0x22, true))), std::nullopt) << "PC alignment";
  EXPECT_EQ(parse(frame().esr(esr_of(0x15, true))), std::nullopt) << "SVC";
}

TEST(AccessDecodeEsr, AMalformedChainEndsTheWalk) {
  // A zero size would loop forever; a size past the end, or one smaller than a header, reads outside.
  EXPECT_EQ(parse(frame().record(fpsimd_record_magic, 0).at(16).esr(esr_of(0x24, true))), std::nullopt) << "size 0";
  EXPECT_EQ(parse(frame().record(fpsimd_record_magic, 4).at(16).esr(esr_of(0x24, true))), std::nullopt) << "size 4";
  EXPECT_EQ(parse(frame().record(fpsimd_record_magic, 4096 + 16)), std::nullopt) << "past the area";
  EXPECT_EQ(parse(frame().record(fpsimd_record_magic, 4088).record(fpsimd_record_magic, 16)), std::nullopt)
      << "the second record runs past the end";
  {
    frame f;
    f.record(fpsimd_record_magic, 4096);  // fills the area: no end record, and no room for another header
    EXPECT_EQ(parse(f), std::nullopt);
  }
  {
    frame f;
    f.record(fpsimd_record_magic, 4088).record(esr_record_magic, 8);  // an ESR header with no room for its value
    EXPECT_EQ(parse(f), std::nullopt);
  }
  // Truncated: the record is whole in the frame, but the caller's length ends inside it.
  frame f;
  f.fpsimd().esr(esr_of(0x24, true));
  EXPECT_EQ(esr_write_from_records(f.data(), 528 + 12), std::nullopt);
  EXPECT_EQ(esr_write_from_records(f.data(), 528 + 16), std::optional<bool>(true)) << "exactly long enough";
  EXPECT_EQ(esr_write_from_records(f.data(), 4), std::nullopt) << "shorter than a header";
  EXPECT_EQ(esr_write_from_records(f.data(), 0), std::nullopt);
}

#if defined(__aarch64__)
// Instructions assembled into this binary by the toolchain that built it, never run: the words the decoder
// meets in real code, in the order of `native_expected`.
extern "C" const uint32_t rdsm_decode_test_words[];
asm(R"(
  .pushsection .text.rdsm_decode_test_words, "ax", %progbits
  .arch armv8.5-a+memtag
  .p2align 2
  .globl rdsm_decode_test_words
  .hidden rdsm_decode_test_words
rdsm_decode_test_words:
  str x1, [x0]
  ldr x1, [x0, #8]
  strb w1, [x0], #1
  ldrsh x1, [x0, x2, lsl #1]
  stp x1, x2, [sp, #-16]!
  ldp q0, q1, [x0]
  ldxr x1, [x0]
  stlxr w2, x1, [x0]
  casal x1, x2, [x0]
  caspa x2, x3, x4, x5, [x0]
  ldadd x1, x2, [x0]
  stclr w1, [x0]
  swpl x1, x2, [x0]
  ldapr w1, [x0]
  ldraa x1, [x0, #16]
  stlur w1, [x0, #-4]
  ldapur x1, [x0]
  st1 {v0.2d, v1.2d}, [x0]
  ld1 {v0.s}[2], [x0], #4
  stg x0, [x0]
  stgp x1, x2, [x0]
  ldg x1, [x0]
  dc zva, x0
  dc civac, x0
  ldr x1, rdsm_decode_test_words
  add x0, x1, x2
  .popsection
)");

const mem_access native_expected[] = {write, read,  write, read,  write, read, read, write, write, write,
                                      write, write, write, read,  read,  write, read, write, read, write,
                                      write, read,  write, read,  read,  unknown};

TEST(AccessDecodeNative, TheCompilersOwnWordsClassify) {
  for (size_t i = 0; i < std::size(native_expected); ++i)
    EXPECT_STREQ(name(aarch64_insn_access(rdsm_decode_test_words[i])), name(native_expected[i]))
        << "instruction " << i << " (0x" << std::hex << rdsm_decode_test_words[i] << ")";
}

// Real faults on a page without access, seen as fault.cpp sees them: the ESR record where the kernel gives
// one (not under qemu-user), and the instruction at the PC.
struct fault_seen {
  void* page = nullptr;
  size_t page_size = 0;
  int count = 0;
  std::optional<bool> esr;
  mem_access decoded = mem_access::unknown;
  uintptr_t pc = 0;
};
fault_seen seen;

void on_test_segv(int, siginfo_t*, void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
  seen.esr = esr_write_from_records(reinterpret_cast<const unsigned char*>(uc->uc_mcontext.__reserved),
                                    sizeof uc->uc_mcontext.__reserved);
  uint32_t insn = 0;
  std::memcpy(&insn, reinterpret_cast<const void*>(uc->uc_mcontext.pc), sizeof insn);
  seen.decoded = aarch64_insn_access(insn);
  seen.pc = uc->uc_mcontext.pc;
  ++seen.count;
  mprotect(seen.page, seen.page_size, PROT_READ | PROT_WRITE);  // the instruction then runs again
}

class AccessDecodeFault : public ::testing::Test {
 protected:
  void SetUp() override {
    seen = fault_seen{};
    seen.page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    seen.page = mmap(nullptr, seen.page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(seen.page, MAP_FAILED);
    struct sigaction sa{};
    sa.sa_sigaction = &on_test_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ASSERT_EQ(sigaction(SIGSEGV, &sa, &previous_), 0);
  }
  void TearDown() override {
    sigaction(SIGSEGV, &previous_, nullptr);
    munmap(seen.page, seen.page_size);
  }
  // One fault at `insn` (the faulting instruction's address), classified `expected` by the decoder and,
  // where there is an ESR record, by it (when `check_esr`: an atomic's permission fault may be reported on
  // its read).
  void expect_fault(const void* insn, mem_access expected, bool check_esr = true) {
    EXPECT_EQ(seen.count, 1);
    EXPECT_EQ(seen.pc, reinterpret_cast<uintptr_t>(insn)) << "the PC the signal frame gives";
    EXPECT_STREQ(name(seen.decoded), name(expected));
    if (check_esr && seen.esr.has_value()) {
      EXPECT_EQ(*seen.esr, expected == write);
    }
    std::printf("  [ESR record %s]\n", seen.esr.has_value() ? "present" : "absent: decoded at the PC");
  }
  struct sigaction previous_{};
};

TEST_F(AccessDecodeFault, AStoreIsAWrite) {
  const void* at = nullptr;
  asm volatile("adr %0, 1f\n1: str %2, [%1]" : "=&r"(at) : "r"(seen.page), "r"(uint64_t{7}) : "memory");
  expect_fault(at, write);
  EXPECT_EQ(*static_cast<uint64_t*>(seen.page), 7u);
}

TEST_F(AccessDecodeFault, ALoadIsARead) {
  const void* at = nullptr;
  uint64_t v = 1;
  asm volatile("adr %0, 1f\n1: ldr %1, [%2]" : "=&r"(at), "=&r"(v) : "r"(seen.page) : "memory");
  expect_fault(at, read);
  EXPECT_EQ(v, 0u);
}

TEST_F(AccessDecodeFault, APairStoreIsAWrite) {
  const void* at = nullptr;
  asm volatile("adr %0, 1f\n1: stp %2, %2, [%1]" : "=&r"(at) : "r"(seen.page), "r"(uint64_t{3}) : "memory");
  expect_fault(at, write);
}

TEST_F(AccessDecodeFault, AnAtomicAddIsAWrite) {
  if ((getauxval(AT_HWCAP) & HWCAP_ATOMICS) == 0) GTEST_SKIP() << "no LSE atomics";
  const void* at = nullptr;
  uint64_t old = 0;
  asm volatile(".arch_extension lse\n adr %0, 1f\n1: ldadd %2, %1, [%3]"
               : "=&r"(at), "=&r"(old)
               : "r"(uint64_t{1}), "r"(seen.page)
               : "memory");
  expect_fault(at, write, false);
}

// qemu-user 7.2 reports a faulting DC ZVA at the PC of an instruction before it (its helper does not
// restore the PC), so the decoder sees another instruction; fault.cpp then falls back on the page state
// when the word there reads as a load. Skipped where that happens, as the test cannot tell the decoder's
// answer from the emulator's.
TEST_F(AccessDecodeFault, DcZvaIsAWrite) {
  uint64_t dczid = 0;
  asm volatile("mrs %0, dczid_el0" : "=r"(dczid));
  if ((dczid & 16) != 0) GTEST_SKIP() << "DC ZVA is prohibited here (DCZID_EL0.DZP)";
  const void* at = nullptr;
  asm volatile("adr %0, 1f\n1: dc zva, %1" : "=&r"(at) : "r"(seen.page) : "memory");
  if (seen.pc != reinterpret_cast<uintptr_t>(at) && !seen.esr.has_value())
    GTEST_SKIP() << "the fault's PC is not the DC ZVA's (qemu-user)";
  expect_fault(at, write);
}
#endif

}  // namespace
