// The PMIx bootstrap: used when a PMIx server (mpirun, prterun, srun --mpi=pmix) started the PE.
#include <pmix.h>

#include <cstdlib>
#include <cstring>

#include "bootstrap/backends.hpp"
#include "common/log.hpp"

namespace rdsm::detail {
namespace {

/// Owns one pmix_value_t returned by PMIx_Get.
struct value_ptr {
  pmix_value_t* v = nullptr;
  ~value_ptr() {
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
  }
};

/// Owns one pmix_info_t array.
struct info_array {
  pmix_info_t* a = nullptr;
  size_t n = 0;
  explicit info_array(size_t count) : n(count) {
    if (n > 0) PMIX_INFO_CREATE(a, n);
  }
  ~info_array() {
    if (a != nullptr) PMIX_INFO_FREE(a, n);
  }
  info_array(const info_array&) = delete;
  info_array& operator=(const info_array&) = delete;
};

status pmix_error(const char* what, pmix_status_t rc) {
  return status::error(format("%s failed: %s (PMIx %s)", what, PMIx_Error_string(rc), PMIx_Get_version()));
}

class pmix_bootstrap final : public bootstrap {
 public:
  ~pmix_bootstrap() override {
    if (initialized_) PMIx_Finalize(nullptr, 0);
  }

  status init() {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      // Chosen by RDSM_BOOT=pmix, or by PMIx's variables in the environment: say which.
      const bool from_env = std::getenv("PMIX_NAMESPACE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
      return status::error(format("PMIx_Init failed: %s; %s (%s)", PMIx_Error_string(rc),
                                  from_env ? "PMIX_NAMESPACE/PMIX_RANK are set but no PMIx server answered"
                                           : "RDSM_BOOT=pmix, but this process was not started by a PMIx launcher",
                                  from_env ? "unset them or set RDSM_BOOT to another backend"
                                           : "start it with mpirun or srun --mpi=pmix, or unset RDSM_BOOT"));
    }
    initialized_ = true;
    pmix_proc_t wildcard;
    PMIX_PROC_CONSTRUCT(&wildcard);
    PMIX_LOAD_PROCID(&wildcard, me_.nspace, PMIX_RANK_WILDCARD);
    value_ptr v;
    rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, nullptr, 0, &v.v);
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Get(PMIX_JOB_SIZE)", rc);
    uint32_t size = 0;
    switch (v.v->type) {
      case PMIX_UINT32: size = v.v->data.uint32; break;
      case PMIX_UINT64: size = static_cast<uint32_t>(v.v->data.uint64); break;
      case PMIX_INT: size = static_cast<uint32_t>(v.v->data.integer); break;
      case PMIX_SIZE: size = static_cast<uint32_t>(v.v->data.size); break;
      default: return status::error(format("PMIx_Get(PMIX_JOB_SIZE) returned an unexpected type %d", v.v->type));
    }
    if (size == 0 || me_.rank >= size)
      return status::error(format("PMIx reports rank %u in a job of %u PEs", me_.rank, size));
    size_ = static_cast<int>(size);
    rank_ = static_cast<int>(me_.rank);
    return {};
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* name() const override { return "pmix"; }

  result<std::vector<std::string>> allgather(std::string_view mine) override {
    // A fresh key per call: PMIx keeps every put for the life of the job.
    std::string key = format("rdsm.ag.%llu", static_cast<unsigned long long>(round_++));
    // Leading byte so an empty contribution is still a non-empty byte object.
    std::string data = "#" + std::string(mine);
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = data.data();
    val.data.bo.size = data.size();
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &val);
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Put", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Commit", rc);
    RDSM_TRY(fence(true));
    std::vector<std::string> out(static_cast<size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      pmix_proc_t p;
      PMIX_PROC_CONSTRUCT(&p);
      PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(r));
      value_ptr v;
      rc = PMIx_Get(&p, key.c_str(), nullptr, 0, &v.v);
      if (rc != PMIX_SUCCESS) return pmix_error(format("PMIx_Get(%s from PE %d)", key.c_str(), r).c_str(), rc);
      if (v.v->type != PMIX_BYTE_OBJECT || v.v->data.bo.size < 1)
        return status::error(format("PMIx_Get(%s from PE %d) returned an unexpected value", key.c_str(), r));
      out[static_cast<size_t>(r)].assign(v.v->data.bo.bytes + 1, v.v->data.bo.size - 1);
    }
    return out;
  }

  status barrier() override { return fence(false); }

  status finalize() override {
    RDSM_TRY(fence(false));
    pmix_status_t rc = PMIx_Finalize(nullptr, 0);
    initialized_ = false;
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Finalize", rc);
    return {};
  }

  [[noreturn]] void abort(int code, const std::string& message) override {
    boot_last_words(format("PE %d ended the job (code %d): %s", rank_, code, message.c_str()));
    if (initialized_) PMIx_Abort(code, message.c_str(), nullptr, 0);
    std::_Exit(code);
  }

 private:
  status fence(bool collect) {
    pmix_proc_t all;
    PMIX_PROC_CONSTRUCT(&all);
    PMIX_LOAD_PROCID(&all, me_.nspace, PMIX_RANK_WILDCARD);
    info_array info(collect ? 1 : 0);
    if (collect) {
      bool yes = true;
      PMIX_INFO_LOAD(&info.a[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    }
    pmix_status_t rc = PMIx_Fence(&all, 1, info.a, info.n);
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Fence", rc);
    return {};
  }

  pmix_proc_t me_{};
  bool initialized_ = false;
  int rank_ = 0, size_ = 1;
  unsigned long long round_ = 0;
};

}  // namespace

result<std::unique_ptr<bootstrap>> pmix_bootstrap_create(const config&) {
  auto b = std::make_unique<pmix_bootstrap>();
  RDSM_TRY(b->init());
  RDSM_LOG_DEBUG("boot", "pmix bootstrap: PE %d of %d", b->rank(), b->size());
  return std::unique_ptr<bootstrap>(std::move(b));
}

}  // namespace rdsm::detail
