package docker

import (
	"context"
	"testing"
)

// TestImages prints what the backend runs: each image's size and the input
// hash it was built from (docker/build-images.sh prints build times).
func TestImages(t *testing.T) {
	ctx := context.Background()
	if ok, why := Available(ctx); !ok {
		t.Skipf("docker backend unavailable: %s", why)
	}
	eng, err := newEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	opts, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, image := range []string{opts.KafkaImage, opts.ToxiproxyImage} {
		res, err := eng.ImageInspect(ctx, image)
		if err != nil {
			t.Fatalf("inspect %s: %v", image, err)
		}
		hash := "(not built here)"
		if res.Config != nil && res.Config.Labels["sharechaos.input-hash"] != "" {
			hash = res.Config.Labels["sharechaos.input-hash"][:12]
		}
		t.Logf("image %s: %d MB, input hash %s", image, res.Size/1_000_000, hash)
	}
}
