package memory_test

import (
	"testing"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T, cfg storagetest.Config) storagetest.TenantFunc {
		db := memory.New(memory.Options{Dimensions: cfg.Dims, AllowedMetadataKeys: cfg.AllowedMetadataKeys})
		return func(tenant string) (storage.Backend, error) { return db.Tenant(tenant) }
	})
}
