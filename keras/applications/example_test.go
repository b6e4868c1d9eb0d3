package applications_test

import (
	"fmt"
	"log"

	"github.com/kerasgo/kerasgo/keras/applications"
)

// Keras's ResNet50, with random weights (give Options.Weights the path of
// a .weights.h5 file Keras saved to start from those).
func ExampleResNet50() {
	model, err := applications.ResNet50(applications.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Name, model.CountParams(), model.Outputs()[0].Shape())
	// Output: resnet50 25636712 (None, 1000)
}

// A feature extractor: MobileNetV2 without its classifier, averaged over
// the rows and columns of its last feature map.
func ExampleMobileNetV2() {
	base, err := applications.MobileNetV2(applications.MobileNetV2Options{
		Options: applications.Options{ExcludeTop: true, Pooling: "avg", InputShape: []int{96, 96, 3}},
		Alpha:   0.5,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(base.Name, base.Outputs()[0].Shape())
	// Output: mobilenetv2_0.50_96 (None, 1280)
}
