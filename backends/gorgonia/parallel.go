package gorgonia
