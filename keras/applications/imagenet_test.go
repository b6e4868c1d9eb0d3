package applications_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/applications"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// Weights "imagenet" downloads Keras's file for the network into Keras's
// cache (here from a local server standing for Keras's origin, serving
// the file Keras's legacy writer wrote for the reference MobileNetV2,
// which has no hash in Keras), loads it, and predicts as Keras; the
// next model finds the file in the cache without the network.
func TestImagenetWeightsDownloadThenCache(t *testing.T) {
	dir, index := kerasReference(t)
	want := index["mobilenetv2"]
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/tensorflow/keras-applications/mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_96.h5" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, "mobilenetv2.h5"))
	}))
	defer applications.SetWeightsBase(srv.URL + "/")()
	home := t.TempDir()
	t.Setenv("KERAS_HOME", home)
	opts := applications.MobileNetV2Options{Options: applications.Options{Weights: "imagenet", InputShape: want.InputShape}}
	first := true
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, err := applications.MobileNetV2(opts)
		if err != nil {
			t.Fatal(err)
		}
		if first {
			first = false
			if _, err := os.Stat(filepath.Join(home, "models", "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_96.h5")); err != nil {
				t.Fatalf("the download is not in Keras's cache: %v", err)
			}
			srv.Close() // from now on, the cache only
		}
		checkPredictions(t, m, be, want)
	})
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1 download", n)
	}
}

// A download whose hash is not Keras's is deleted and reported; with no
// origin to reach and nothing in the cache the error names the file, the
// cache and how to get the file.
func TestImagenetWeightsBadDownload(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("not the weights"))
	}))
	defer applications.SetWeightsBase(srv.URL + "/")()
	home := t.TempDir()
	t.Setenv("KERAS_HOME", home)
	_, err := applications.ResNet50(applications.Options{Weights: "imagenet", ExcludeTop: true, InputShape: []int{32, 32, 3}})
	if err == nil || !strings.Contains(err.Error(), "not 4d473c1dd8becc155b73f8504c6f6626: it was deleted") {
		t.Fatalf("a download with the wrong hash: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "models")); len(entries) != 0 {
		t.Fatalf("the bad download left %v in the cache", entries)
	}
	srv.Close()
	// NASNet's file is kept under Keras's name for it, not its origin's
	// (NASNet-mobile.h5).
	_, err = applications.NASNetMobile(applications.Options{Weights: "imagenet"})
	if err == nil || !strings.Contains(err.Error(), "nasnet_mobile.h5 is not in Keras's cache") {
		t.Fatalf("NASNetMobile offline, nothing cached: %v", err)
	}
	_, err = applications.VGG16(applications.Options{Weights: "imagenet"})
	for _, want := range []string{"vgg16_weights_tf_dim_ordering_tf_kernels.h5 is not in Keras's cache (" + filepath.Join(home, "models") + ")", `keras.applications.VGG16(weights="imagenet")`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("offline, nothing cached: %v, want it to say %q", err, want)
		}
	}
}

// Each network's PreprocessInput does what Keras's preprocess_input of
// its module does, on pixels 0 to 255.
func TestPreprocessInputMatchesKeras(t *testing.T) {
	kerasReference(t)
	pre := reference.extra.Preprocess
	var x []float32
	var shape []int
	if err := json.Unmarshal(pre["x"], &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pre["shape"], &shape); err != nil {
		t.Fatal(err)
	}
	for module, f := range map[string]func(keras.Array) (keras.Array, error){
		"resnet": applications.ResNetPreprocessInput, "vgg16": applications.VGG16PreprocessInput,
		"vgg19": applications.VGG19PreprocessInput, "densenet": applications.DenseNetPreprocessInput,
		"mobilenet": applications.MobileNetPreprocessInput, "xception": applications.XceptionPreprocessInput,
		"inception_v3": applications.InceptionV3PreprocessInput,
		"resnet_v2":    applications.ResNetV2PreprocessInput, "mobilenet_v2": applications.MobileNetV2PreprocessInput,
		"efficientnet": applications.EfficientNetPreprocessInput, "efficientnet_v2": applications.EfficientNetV2PreprocessInput,
		"mobilenet_v3": applications.MobileNetV3PreprocessInput, "inception_resnet_v2": applications.InceptionResNetV2PreprocessInput,
		"convnext": applications.ConvNeXtPreprocessInput, "nasnet": applications.NASNetPreprocessInput,
	} {
		var want []float64
		if err := json.Unmarshal(pre[module], &want); err != nil {
			t.Fatal(err)
		}
		got, err := f(keras.Array{Shape: shape, Data: x})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got.Data {
			if math.Abs(float64(v)-want[i]) > 1e-4 {
				t.Fatalf("%s: value %d is %v, Keras's %v", module, i, v, want[i])
			}
		}
	}
	if _, err := applications.ResNetPreprocessInput(keras.Array{Shape: []int{2, 4}, Data: make([]float32, 8)}); err == nil || !strings.Contains(err.Error(), "3 colours") {
		t.Errorf("images without 3 channels: %v", err)
	}
}

// DecodePredictions gives Keras's decode_predictions, reading the class
// index from Keras's cache after one download checked against its hash.
func TestDecodePredictionsMatchesKeras(t *testing.T) {
	dir, index := kerasReference(t)
	data, err := os.ReadFile(filepath.Join(dir, "class_index.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(data)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	defer applications.SetClassIndex(srv.URL+"/imagenet_class_index.json", hex.EncodeToString(sum[:]))()
	t.Setenv("KERAS_HOME", t.TempDir())
	p := index["resnet50"].Predictions
	pred := keras.Array{Shape: p.Shape, Data: make([]float32, len(p.Data))}
	for i, v := range p.Data {
		pred.Data[i] = float32(v)
	}
	got, err := applications.DecodePredictions(context.Background(), pred, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := reference.extra.Decoded
	if len(got) != len(want) {
		t.Fatalf("%d rows, Keras's %d", len(got), len(want))
	}
	for r := range want {
		for k, w := range want[r] {
			g := got[r][k]
			if g.ClassID != w[0] || g.Description != w[1] || math.Abs(float64(g.Score)-w[2].(float64)) > 1e-6 {
				t.Errorf("row %d guess %d: %+v, Keras's %v", r, k, g, w)
			}
		}
	}
	if _, err := applications.DecodePredictions(context.Background(), keras.Array{Shape: []int{1, 10}, Data: make([]float32, 10)}, 3); err == nil || !strings.Contains(err.Error(), "(samples, 1000)") {
		t.Errorf("predictions of 10 classes: %v", err)
	}
}
