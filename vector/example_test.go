package vector_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/vector"
)

func ExampleHashEmbedder() {
	e, err := vector.NewHashEmbedder(vector.HashOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(context.Background(), []string{
		"fungicida para videira",
		"Fungicida sistêmico para o míldio da videira",
		"Herbicida para plantas daninhas na soja",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	grapes, _ := vector.Dot(vecs[0], vecs[1])
	soy, _ := vector.Dot(vecs[0], vecs[2])
	fmt.Println(len(vecs[0]), grapes > soy)
	// Output:
	// 1536 true
}
